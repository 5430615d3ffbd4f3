//! A scripted HTTP/1.1 server on 127.0.0.1 for provider tests.
//!
//! Each connection gets the next scripted reply, written in pieces with a flush and a
//! pause between them, so a client sees a stream split exactly where the test says, or
//! cut off, or stalled. Requests are recorded for assertions on headers and bodies.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Reply {
    pieces: Vec<Vec<u8>>,
    pause: Duration,
    /// Keep the connection open this long after the last piece (a stalled server).
    hang: Duration,
}

impl Reply {
    /// A `text/event-stream` reply whose body is cut into pieces at `cuts` (byte offsets
    /// into the body), ended by closing the connection.
    pub fn sse(body: &str, cuts: &[usize]) -> Reply {
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
        let body = body.as_bytes();
        let mut pieces = vec![head.as_bytes().to_vec()];
        let mut start = 0;
        for &cut in cuts.iter().chain(std::iter::once(&body.len())) {
            let cut = cut.clamp(start, body.len());
            pieces.push(body[start..cut].to_vec());
            start = cut;
        }
        Reply {
            pieces,
            pause: Duration::from_millis(1),
            hang: Duration::ZERO,
        }
    }

    /// A reply with a status, extra headers and a whole body.
    pub fn status(code: u16, headers: &[(&str, &str)], content_type: &str, body: &str) -> Reply {
        let mut head = format!(
            "HTTP/1.1 {code} Whatever\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n",
            body.len()
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        Reply {
            pieces: vec![head.into_bytes(), body.as_bytes().to_vec()],
            pause: Duration::ZERO,
            hang: Duration::ZERO,
        }
    }

    /// Waits this long between pieces (a slow but live server).
    pub fn pause(mut self, pause: Duration) -> Reply {
        self.pause = pause;
        self
    }

    pub fn hang(mut self, hang: Duration) -> Reply {
        self.hang = hang;
        self
    }
}

#[derive(Debug, Clone)]
pub struct Recorded {
    pub head: String,
    pub body: Vec<u8>,
}

impl Recorded {
    /// A header's value (names compared case-insensitively).
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().skip(1).find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then(|| value.trim().to_string())
        })
    }

    /// The request target, e.g. `/v1/messages`.
    pub fn path(&self) -> String {
        self.head
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_string()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }
}

pub struct Server {
    port: u16,
    recorded: Arc<Mutex<Vec<Recorded>>>,
}

impl Server {
    /// Serves `replies` in order, one per connection, then stops accepting.
    pub fn start(replies: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().expect("local addr").port();
        let recorded = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&recorded);
        thread::spawn(move || {
            for reply in replies {
                let Ok((stream, _)) = listener.accept() else {
                    return;
                };
                serve(stream, &reply, &sink);
            }
        });
        Server { port, recorded }
    }

    /// Answers every connection with what `reply_for` makes of its request, for as long
    /// as the test runs.
    pub fn answering(reply_for: impl Fn(&Recorded) -> Reply + Send + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().expect("local addr").port();
        let recorded = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&recorded);
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                stream.set_read_timeout(Some(Duration::from_secs(10))).ok();
                let Some(request) = read_request(&mut stream) else {
                    continue;
                };
                let reply = reply_for(&request);
                sink.lock().expect("lock").push(request);
                write_reply(stream, &reply);
            }
        });
        Server { port, recorded }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.recorded.lock().expect("lock").clone()
    }
}

fn serve(mut stream: TcpStream, reply: &Reply, sink: &Mutex<Vec<Recorded>>) {
    stream.set_nodelay(true).ok();
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok();
    let Some(request) = read_request(&mut stream) else {
        return;
    };
    sink.lock().expect("lock").push(request);
    write_reply(stream, reply);
}

fn write_reply(mut stream: TcpStream, reply: &Reply) {
    stream.set_nodelay(true).ok();
    for piece in &reply.pieces {
        if stream
            .write_all(piece)
            .and_then(|_| stream.flush())
            .is_err()
        {
            return;
        }
        if !reply.pause.is_zero() {
            thread::sleep(reply.pause);
        }
    }
    if !reply.hang.is_zero() {
        thread::sleep(reply.hang);
    }
    stream.shutdown(std::net::Shutdown::Both).ok();
}

/// One HTTP/1.1 request off the stream (head and a `Content-Length` body), as recorded.
pub fn read_request(stream: &mut TcpStream) -> Option<Recorded> {
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 65536];
    let head_end = loop {
        if let Some(at) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(&mut buffer).ok()?;
        if n == 0 {
            return None;
        }
        bytes.extend_from_slice(&buffer[..n]);
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0);
    while bytes.len() < head_end + length {
        let n = stream.read(&mut buffer).ok()?;
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&buffer[..n]);
    }
    Some(Recorded {
        head,
        body: bytes[head_end..].to_vec(),
    })
}

/// Positions that cut a text at awkward places: every `step` bytes, plus inside every
/// multi-byte character and between every `\r` and `\n`.
pub fn odd_cuts(text: &str, step: usize) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut cuts: Vec<usize> = (step..bytes.len()).step_by(step).collect();
    for (i, c) in text.char_indices() {
        if c.len_utf8() > 1 {
            cuts.push(i + 1);
        }
        if c == '\r' {
            cuts.push(i + 1);
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}
pub mod fixtures;
pub mod model;
