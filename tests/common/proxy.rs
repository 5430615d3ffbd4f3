//! For the proxy tests: the real `brief proxy` as a child process, an upstream provider on
//! loopback that serves many connections at once and can stream slowly, die mid-answer or
//! never answer, and a raw HTTP/1.1 client that can hang up whenever a test says.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

pub use crate::loopback::Recorded;
use crate::loopback::read_request;

/// How the upstream answers one request.
#[derive(Clone, Debug)]
pub struct Script {
    pub head: String,
    pub pieces: Vec<Vec<u8>>,
    pub pause: Duration,
    /// After the last piece, keep the connection open this long, then close it.
    pub hang: Option<Duration>,
    /// Serve further requests on the connection (else close it after this answer).
    pub keep_alive: bool,
}

impl Script {
    /// A whole JSON answer with a content length.
    pub fn json(status: u16, body: &str) -> Script {
        Script {
            head: format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\nx-upstream: yes\r\ncontent-length: {}\r\n\r\n",
                body.len()
            ),
            pieces: vec![body.as_bytes().to_vec()],
            pause: Duration::ZERO,
            hang: None,
            keep_alive: true,
        }
    }

    /// An event stream, chunked, cut into `n` pieces; `complete` ends the chunked body.
    pub fn sse(body: &str, n: usize, pause: Duration, complete: bool) -> Script {
        let step = body.len().div_ceil(n.max(1)).max(1);
        let mut pieces: Vec<Vec<u8>> = body
            .as_bytes()
            .chunks(step)
            .map(|c| {
                let mut piece = format!("{:x}\r\n", c.len()).into_bytes();
                piece.extend_from_slice(c);
                piece.extend_from_slice(b"\r\n");
                piece
            })
            .collect();
        if complete {
            pieces.push(b"0\r\n\r\n".to_vec());
        }
        Script {
            head: "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n".into(),
            pieces,
            pause,
            hang: None,
            keep_alive: complete,
        }
    }

    /// Reads the request and never answers.
    pub fn silent() -> Script {
        Script {
            head: String::new(),
            pieces: Vec::new(),
            pause: Duration::ZERO,
            hang: Some(Duration::from_secs(30)),
            keep_alive: false,
        }
    }
}

pub struct Upstream {
    pub url: String,
    recorded: Arc<Mutex<Vec<Recorded>>>,
    /// Answers whose writing failed because the other side had closed.
    pub cut_off: Arc<AtomicUsize>,
}

impl Upstream {
    /// Serves every connection on its own thread with what `script_for` says.
    pub fn start(script_for: impl Fn(&Recorded) -> Script + Send + Sync + 'static) -> Upstream {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let recorded = Arc::new(Mutex::new(Vec::new()));
        let cut_off = Arc::new(AtomicUsize::new(0));
        let script_for = Arc::new(script_for);
        let (sink, cut) = (Arc::clone(&recorded), Arc::clone(&cut_off));
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let (script_for, sink, cut) =
                    (Arc::clone(&script_for), Arc::clone(&sink), Arc::clone(&cut));
                thread::spawn(move || {
                    stream.set_nodelay(true).ok();
                    while let Some(request) = read_request(&mut stream) {
                        let script = script_for(&request);
                        sink.lock().unwrap().push(request);
                        if !answer(&mut stream, &script) {
                            cut.fetch_add(1, Ordering::SeqCst);
                            return;
                        }
                        if !script.keep_alive {
                            return;
                        }
                    }
                });
            }
        });
        Upstream {
            url,
            recorded,
            cut_off,
        }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.recorded.lock().unwrap().clone()
    }
}

fn answer(stream: &mut TcpStream, script: &Script) -> bool {
    let mut all = vec![script.head.as_bytes().to_vec()];
    all.extend(script.pieces.iter().cloned());
    for (i, piece) in all.iter().enumerate() {
        if i > 1 && !script.pause.is_zero() {
            thread::sleep(script.pause);
        }
        if !piece.is_empty()
            && stream
                .write_all(piece)
                .and_then(|_| stream.flush())
                .is_err()
        {
            return false;
        }
    }
    if let Some(hang) = script.hang {
        thread::sleep(hang);
    }
    true
}

/// A running `brief proxy`; stopped with SIGTERM when dropped.
pub struct Proxy {
    pub url: String,
    pub ledger: PathBuf,
    child: Option<Child>,
    _dir: Option<tempfile::TempDir>,
}

impl Proxy {
    /// Starts the proxy with every upstream at `upstream`, a fresh ledger and `extra` flags.
    pub fn start(upstream: &str, extra: &[&str]) -> Proxy {
        let dir = tempfile::tempdir().unwrap();
        let ledger = dir.path().join("usage.jsonl");
        let mut proxy = Proxy::start_with(upstream, &ledger, extra);
        proxy._dir = Some(dir);
        proxy
    }

    pub fn start_with(upstream: &str, ledger: &Path, extra: &[&str]) -> Proxy {
        Proxy::start_env(upstream, ledger.as_os_str(), extra, &[])
    }

    /// [`Proxy::start_with`] with a ledger that may be a URL, and environment variables
    /// (the state directory of a test, say).
    pub fn start_env(
        upstream: &str,
        ledger: &std::ffi::OsStr,
        extra: &[&str],
        env: &[(&str, &std::ffi::OsStr)],
    ) -> Proxy {
        Proxy::start_full([upstream; 3], ledger, extra, env)
    }

    /// Starts the proxy with the OpenAI, Anthropic and Gemini upstreams at the three
    /// `upstreams`, in that order.
    pub fn start_apart(upstreams: [&str; 3], ledger: &Path, extra: &[&str]) -> Proxy {
        Proxy::start_full(upstreams, ledger.as_os_str(), extra, &[])
    }

    fn start_full(
        upstreams: [&str; 3],
        ledger: &std::ffi::OsStr,
        extra: &[&str],
        env: &[(&str, &std::ffi::OsStr)],
    ) -> Proxy {
        let [openai, anthropic, gemini] = upstreams;
        let mut child = Command::new(env!("CARGO_BIN_EXE_brief"))
            .args(["--color", "never", "proxy", "--listen", "127.0.0.1:0"])
            .args(["--openai-upstream", &format!("{openai}/v1")])
            .args(["--anthropic-upstream", anthropic])
            .args(["--gemini-upstream", gemini])
            .arg("--ledger")
            .arg(ledger)
            .args(extra)
            .env_remove("OPENAI_BASE_URL")
            .env_remove("ANTHROPIC_BASE_URL")
            .env_remove("GOOGLE_GEMINI_BASE_URL")
            .envs(env.iter().map(|(k, v)| (*k, *v)))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(line.starts_with("http://127.0.0.1:"), "proxy said {line:?}");
        Proxy {
            url: line.trim().to_string(),
            ledger: PathBuf::from(ledger),
            child: Some(child),
            _dir: None,
        }
    }

    /// Sends SIGTERM and waits; returns the exit status and stderr.
    pub fn stop(&mut self) -> (std::process::ExitStatus, String) {
        let mut child = self.child.take().expect("running");
        terminate_pid(child.id());
        let status = child.wait().unwrap();
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        (status, stderr)
    }

    /// SIGKILL: the proxy gets no chance to write or hand on anything.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    /// The ledger rows, each line parsed on its own (a glued or torn line fails here).
    pub fn rows(&self) -> Vec<serde_json::Value> {
        let text = std::fs::read_to_string(&self.ledger).unwrap_or_default();
        parse_rows(&text)
    }

    /// The rows whole so far, while the proxy runs: a last line without its newline is a
    /// row the writer is still appending (a read can land inside its one `write`, which
    /// once failed `usage_html` with "EOF while parsing"), left for the next read.
    fn rows_so_far(&self) -> Vec<serde_json::Value> {
        let text = std::fs::read_to_string(&self.ledger).unwrap_or_default();
        parse_rows(text.rfind('\n').map_or("", |end| &text[..=end]))
    }

    /// Waits (bounded) until the ledger has `n` rows.
    /// Waits until the ledger has `n` rows: returns as soon as they are there, and gives a
    /// loaded machine (CI's two cores) ample time before a test sees fewer.
    pub fn wait_rows(&self, n: usize) -> Vec<serde_json::Value> {
        self.wait_rows_for(n, Duration::from_secs(30))
    }

    /// Waits up to `limit` until the ledger has `n` rows.
    pub fn wait_rows_for(&self, n: usize, limit: Duration) -> Vec<serde_json::Value> {
        let started = std::time::Instant::now();
        while started.elapsed() < limit {
            let rows = self.rows_so_far();
            if rows.len() >= n {
                return rows;
            }
            thread::sleep(Duration::from_millis(10));
        }
        self.rows()
    }

    pub fn get(&self, path: &str) -> String {
        let (_, _, body) = send(&self.url, "GET", path, &[], b"");
        String::from_utf8(body).unwrap()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

pub fn terminate_pid(pid: u32) {
    Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
}

/// Sends one request with HTTP/1.1 and `connection: close`; returns status, head, body.
pub fn send(
    base: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String, Vec<u8>) {
    let mut stream = open(base, method, path, headers, body);
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    parse_response(&raw)
}

/// `open`s `POST /v1/chat/completions` with `body` and no extra headers, to read the
/// answer as it comes.
pub fn open_chat(base: &str, body: &[u8]) -> TcpStream {
    open(base, "POST", "/v1/chat/completions", &[], body)
}

/// `POST /v1/chat/completions` with `body` and no extra headers: the call most proxy
/// tests make.
pub fn post_chat(base: &str, body: &[u8]) -> (u16, String, Vec<u8>) {
    send(base, "POST", "/v1/chat/completions", &[], body)
}

/// Opens a connection and sends a request; the caller reads the answer.
pub fn open(
    base: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> TcpStream {
    let addr = base.trim_start_matches("http://");
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    stream
}

/// Splits a raw response into status, head and (de-chunked) body.
pub fn parse_response(raw: &[u8]) -> (u16, String, Vec<u8>) {
    let at = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(raw.len(), |a| a + 4);
    let head = String::from_utf8_lossy(&raw[..at]).into_owned();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut body = raw[at..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body).0;
    }
    (status, head, body)
}

/// The data of a chunked body, and whether its final zero-length chunk arrived.
pub fn dechunk(mut raw: &[u8]) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    loop {
        let Some(line_end) = raw.windows(2).position(|w| w == b"\r\n") else {
            return (out, false);
        };
        let size = usize::from_str_radix(String::from_utf8_lossy(&raw[..line_end]).trim(), 16)
            .unwrap_or(0);
        if size == 0 {
            return (
                out,
                raw[..line_end].iter().all(|b| *b == b'0') && line_end > 0,
            );
        }
        let start = line_end + 2;
        if raw.len() < start + size {
            out.extend_from_slice(&raw[start..]);
            return (out, false);
        }
        out.extend_from_slice(&raw[start..start + size]);
        raw = &raw[(start + size + 2).min(raw.len())..];
    }
}

/// Each line of a ledger parsed on its own: a glued or torn line fails here.
fn parse_rows(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}
