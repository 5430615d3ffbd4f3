//! Client connections: how many the proxy holds, and how long a client may hold one
//! without moving.
//!
//! Every connection takes a slot of `--max-connections`; past the cap a new connection gets
//! an immediate `503` with `Retry-After` and is closed, so clients that hold connections
//! open (idle, or stalled half-way through their headers) can fill the cap but never
//! exhaust the process's file descriptors and lock legitimate clients out of the ones
//! already open. The cap is lowered to what the descriptor limit allows (each call holds
//! two: the client's and the upstream's), after the soft limit is raised to the hard one
//! at start, as servers do. Within a connection, hyper's header-read timeout cuts a client
//! that does not finish its headers (and one idle between requests), `read_body` cuts a
//! body that stops arriving, and [`Stalls`] cuts a client that stops taking its answer.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;
use tokio::time::Sleep;

/// Descriptors kept for everything but connections: the listener, the ledger, stdio, the
/// runtime's own.
const SPARE_FDS: u64 = 64;

/// Over-cap connections being answered `503` at once; past this they are closed unanswered.
const MAX_REFUSING: usize = 256;

/// Binds and listens with an accept queue as long as the connection cap (the kernel caps
/// it at `net.core.somaxconn`): with the usual 128, a burst of new connections overflows
/// the queue and their SYNs are dropped — each such client then waits a second to retry.
pub fn listen(
    addr: std::net::SocketAddr,
    max_connections: usize,
) -> io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(u32::try_from(max_connections.clamp(128, 65_535)).unwrap_or(4096))
}

/// Raises the soft limit on open files to the hard limit; returns the soft limit in force.
pub fn raise_fd_limit() -> u64 {
    crate::sys::raise_open_files_limit()
}

/// The connection cap the descriptor limit allows: two descriptors a call, some spare.
pub fn cap_for(requested: usize, fd_limit: u64) -> usize {
    let allowed = (fd_limit.saturating_sub(SPARE_FDS) / 2).max(1);
    requested
        .min(usize::try_from(allowed).unwrap_or(usize::MAX))
        .max(1)
}

/// Slots for connections, and for answering those over the cap.
#[derive(Clone)]
pub struct Gate {
    slots: Arc<Semaphore>,
    refusing: Arc<Semaphore>,
    cap: usize,
}

impl Gate {
    pub fn new(cap: usize) -> Gate {
        Gate {
            slots: Arc::new(Semaphore::new(cap)),
            refusing: Arc::new(Semaphore::new(MAX_REFUSING)),
            cap,
        }
    }

    /// A slot for a new connection, held until it closes; `None` past the cap (the
    /// connection has then been answered `503`, or closed).
    pub fn admit(
        &self,
        stream: TcpStream,
    ) -> Option<(TcpStream, tokio::sync::OwnedSemaphorePermit)> {
        match Arc::clone(&self.slots).try_acquire_owned() {
            Ok(slot) => Some((stream, slot)),
            Err(_) => {
                if let Ok(permit) = Arc::clone(&self.refusing).try_acquire_owned() {
                    let cap = self.cap;
                    tokio::spawn(async move {
                        refuse(stream, cap).await;
                        drop(permit);
                    });
                }
                None
            }
        }
    }
}

/// `503` in a shape both SDK families read (`error.message` for OpenAI's, `type` and
/// `error.type` for Anthropic's), then close after reading what the client was sending
/// (briefly), so it sees the answer rather than a reset.
async fn refuse(mut stream: TcpStream, cap: usize) {
    let body = serde_json::json!({
        "type": "error",
        "error": {
            "type": "overloaded_error",
            "message": format!(
                "brief proxy: all {cap} connections are in use (--max-connections); retry shortly"
            ),
            "code": "too_many_connections",
            "param": null,
        }
    })
    .to_string();
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(answer.as_bytes()).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 4096];
        let mut drained = 0;
        while drained < 64 * 1024 {
            match stream.read(&mut sink).await? {
                0 => break,
                n => drained += n,
            }
        }
        Ok::<_, io::Error>(())
    })
    .await;
}

/// Work a call leaves to its connection, to run once the bytes queued before it have been
/// written to the client: a call's bookkeeping (its row, waking the digest threads) is
/// known just before its answer's last bytes go out, and doing it there would put it in
/// front of them (hyper drops a finished body before it flushes).
#[derive(Default)]
pub struct AfterWrite {
    /// Something is waiting: a write checks this alone.
    waiting: AtomicBool,
    state: Mutex<AfterState>,
}

#[derive(Default)]
struct AfterState {
    /// The connection is gone: work runs at once.
    closed: bool,
    work: Vec<Box<dyn FnOnce() + Send>>,
}

impl AfterWrite {
    /// Runs `work` after the connection's next write (at once if it has closed; when the
    /// connection closes, whatever is left).
    pub fn defer(&self, work: Box<dyn FnOnce() + Send>) {
        let Ok(mut state) = self.state.lock() else {
            return work();
        };
        if state.closed {
            drop(state);
            return work();
        }
        state.work.push(work);
        self.waiting.store(true, Ordering::Release);
    }

    fn run(&self) {
        if !self.waiting.swap(false, Ordering::Acquire) {
            return;
        }
        let work = match self.state.lock() {
            Ok(mut state) => std::mem::take(&mut state.work),
            Err(_) => return,
        };
        for work in work {
            work();
        }
    }

    fn close(&self) {
        let work = match self.state.lock() {
            Ok(mut state) => {
                state.closed = true;
                std::mem::take(&mut state.work)
            }
            Err(_) => return,
        };
        for work in work {
            work();
        }
    }
}

/// A client connection that fails a write which could not make progress for `limit`: a
/// client that stops reading its answer gives up its connection instead of holding it.
/// After each write it runs what its calls left to do ([`AfterWrite`]).
pub struct Stalls {
    inner: TcpStream,
    limit: Duration,
    stalled: Option<Pin<Box<Sleep>>>,
    after: Arc<AfterWrite>,
}

impl Stalls {
    pub fn new(inner: TcpStream, limit: Duration, after: Arc<AfterWrite>) -> Stalls {
        Stalls {
            inner,
            limit,
            stalled: None,
            after,
        }
    }

    fn check<T>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if polled.is_ready() {
            self.stalled = None;
            self.after.run();
            return polled;
        }
        let limit = self.limit;
        let timer = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        if timer.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client took nothing of its answer for the idle timeout",
            )));
        }
        Poll::Pending
    }
}

impl AsyncRead for Stalls {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Stalls {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.check(cx, polled)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.check(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

impl Drop for Stalls {
    fn drop(&mut self) {
        self.after.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_leaves_two_descriptors_a_call() {
        assert_eq!(cap_for(4096, 20_000), 4096);
        assert_eq!(cap_for(4096, 1024), 480);
        assert_eq!(cap_for(4096, 10), 1);
        assert_eq!(cap_for(10, 1 << 40), 10);
    }
}
