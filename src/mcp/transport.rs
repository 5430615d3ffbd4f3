//! MCP over stdio with a bounded message size that is answered, not dropped.
//!
//! The SDK's stdio transport reads at most 16 MiB per message and silently discards a
//! longer line, so a client that sent one waits for its answer forever. Here stdin is read
//! first by a filter that passes every line up to [`MAX_MESSAGE_BYTES`] on to the SDK
//! unchanged and, for a longer one, keeps nothing but the request's `id` (read as the bytes
//! stream past, in constant memory) and has the transport answer that id with a JSON-RPC
//! `Invalid Request` error naming the limit. The answer goes out through the SDK's own
//! writer, so it never interleaves with another message; the server stays up.

use std::sync::Arc;

use rmcp::model::{ErrorData, NumberOrString, ServerJsonRpcMessage};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The largest message (one line, its newline included) the server reads.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// The longest `id` kept from an oversized request; a longer one is answered with `null`.
const MAX_ID_BYTES: usize = 256;

/// A message over the limit: its id (when one was found) and its size.
#[derive(Debug, PartialEq)]
struct Oversized {
    id: Option<NumberOrString>,
    bytes: usize,
}

/// The server side of stdio, bounded.
pub struct BoundedStdio<
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
> {
    inner: AsyncRwTransport<RoleServer, tokio::io::DuplexStream, W>,
    oversized: mpsc::UnboundedReceiver<Oversized>,
    _input: std::marker::PhantomData<fn() -> R>,
}

/// The transport over this process's stdin and stdout.
pub fn stdio() -> BoundedStdio<tokio::io::Stdin, tokio::io::Stdout> {
    bounded(tokio::io::stdin(), tokio::io::stdout())
}

/// The transport over any reader and writer (tests use pipes).
pub fn bounded<R, W>(input: R, output: W) -> BoundedStdio<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (to_sdk, from_filter) = tokio::io::duplex(64 * 1024);
    let (notices, oversized) = mpsc::unbounded_channel();
    tokio::spawn(filter(input, to_sdk, notices));
    // The SDK sees only lines the filter let through; its own cap never bites.
    let inner = AsyncRwTransport::new_server(from_filter, output)
        .with_max_line_length(MAX_MESSAGE_BYTES + 2);
    BoundedStdio {
        inner,
        oversized,
        _input: std::marker::PhantomData,
    }
}

impl<R, W> Transport<RoleServer> for BoundedStdio<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let notice = tokio::select! {
                biased;
                Some(notice) = self.oversized.recv() => notice,
                message = self.inner.receive() => return message,
            };
            // The SDK's writer, so this answer cannot interleave with another message.
            let _ = self.inner.send(answer(&notice)).await;
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await
    }
}

fn answer(notice: &Oversized) -> ServerJsonRpcMessage {
    let error = ErrorData::invalid_request(
        format!(
            "request too large: {} bytes, over the {} MiB this server reads per message",
            notice.bytes,
            MAX_MESSAGE_BYTES / 1024 / 1024
        ),
        Some(serde_json::json!({"limit_bytes": MAX_MESSAGE_BYTES, "bytes": notice.bytes})),
    );
    ServerJsonRpcMessage::error(error, notice.id.clone())
}

/// Copies lines from `input` to the SDK; reports each line over the limit instead.
async fn filter<R, W>(input: R, mut to_sdk: W, notices: mpsc::UnboundedSender<Oversized>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut input = BufReader::with_capacity(64 * 1024, input);
    let mut line: Vec<u8> = Vec::new();
    // Set while a line over the limit streams past: its id scanner and size so far.
    let mut over: Option<(IdScanner, usize)> = None;
    loop {
        let (taken, ended) = {
            let Ok(available) = input.fill_buf().await else {
                return;
            };
            if available.is_empty() {
                return;
            }
            let newline = memchr::memchr(b'\n', available);
            let take = newline.map_or(available.len(), |at| at + 1);
            let chunk = &available[..take];
            match &mut over {
                Some((scanner, bytes)) => {
                    scanner.feed(chunk);
                    *bytes += take;
                }
                None if line.len() + take > MAX_MESSAGE_BYTES => {
                    let mut scanner = IdScanner::default();
                    scanner.feed(&line);
                    scanner.feed(chunk);
                    over = Some((scanner, line.len() + take));
                    line = Vec::new();
                }
                None => line.extend_from_slice(chunk),
            }
            (take, newline.is_some())
        };
        input.consume(taken);
        if !ended {
            continue;
        }
        match over.take() {
            Some((scanner, bytes)) => {
                let id = scanner.id();
                if notices.send(Oversized { id, bytes }).is_err() {
                    return;
                }
            }
            None => {
                if to_sdk.write_all(&line).await.is_err() || to_sdk.flush().await.is_err() {
                    return;
                }
                line.clear();
                if line.capacity() > 1024 * 1024 {
                    line = Vec::new();
                }
            }
        }
    }
}

/// Finds the top-level `"id"` member of a JSON object as its bytes stream past, in
/// constant memory: it tracks nesting and strings, and keeps only the current top-level
/// key (when it could be `id`) and, after `"id":`, the value's first [`MAX_ID_BYTES`].
#[derive(Default)]
struct IdScanner {
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// At depth 1, expecting a key (after `{` or `,`).
    want_key: bool,
    /// The key being read at depth 1 (up to 3 bytes; longer keys are not `id`).
    key: Vec<u8>,
    reading_key: bool,
    key_too_long: bool,
    /// The last key was `id` and its `:` was seen: the value comes next.
    value_next: bool,
    /// The value being read, raw.
    value: Vec<u8>,
    reading_value: bool,
    found: Option<Vec<u8>>,
}

impl IdScanner {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.step(b);
        }
    }

    fn step(&mut self, b: u8) {
        if self.reading_value {
            let string = self.value.first() == Some(&b'"');
            let done = if string {
                self.push_value(b);
                if self.escaped {
                    self.escaped = false;
                    false
                } else if b == b'\\' {
                    self.escaped = true;
                    false
                } else {
                    b == b'"' && self.value.len() > 1
                }
            } else if b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E') {
                self.push_value(b);
                false
            } else {
                true
            };
            if done {
                self.reading_value = false;
                if self.found.is_none() && self.value.len() <= MAX_ID_BYTES {
                    self.found = Some(std::mem::take(&mut self.value));
                }
                self.value.clear();
                if string {
                    self.in_string = false;
                    return;
                }
                // The byte that ended a number is structure: read it as such below.
            } else {
                return;
            }
        }
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if self.reading_key {
                    self.reading_key = false;
                }
                return;
            }
            if self.reading_key {
                if self.key.len() < 3 {
                    self.key.push(b);
                } else {
                    self.key_too_long = true;
                }
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.value_next {
                    self.value_next = false;
                    self.reading_value = true;
                    self.in_string = true;
                    self.value.clear();
                    self.value.push(b);
                } else if self.depth == 1 && self.want_key {
                    self.want_key = false;
                    self.reading_key = true;
                    self.key_too_long = false;
                    self.key.clear();
                }
            }
            b'{' | b'[' => {
                self.value_next = false;
                self.depth += 1;
                if self.depth == 1 && b == b'{' {
                    self.want_key = true;
                }
            }
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b',' if self.depth == 1 => {
                self.want_key = true;
                self.value_next = false;
            }
            b':' if self.depth == 1 => {
                self.value_next = !self.key_too_long && self.key == b"id";
                self.key.clear();
            }
            b if self.depth == 1 && self.value_next && (b.is_ascii_digit() || b == b'-') => {
                self.value_next = false;
                self.reading_value = true;
                self.value.clear();
                self.value.push(b);
            }
            b if b.is_ascii_whitespace() => {}
            _ => self.value_next = false,
        }
    }

    fn push_value(&mut self, b: u8) {
        if self.value.len() <= MAX_ID_BYTES {
            self.value.push(b);
        }
    }

    /// The id as JSON-RPC has it: an integer or a string.
    fn id(&self) -> Option<NumberOrString> {
        let raw = self.found.as_deref()?;
        match serde_json::from_slice::<serde_json::Value>(raw).ok()? {
            serde_json::Value::String(s) => Some(NumberOrString::String(Arc::from(s))),
            serde_json::Value::Number(n) => n.as_i64().map(NumberOrString::Number),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id_of(text: &str) -> Option<NumberOrString> {
        let mut scanner = IdScanner::default();
        // Fed in small pieces, as a stream arrives.
        for piece in text.as_bytes().chunks(3) {
            scanner.feed(piece);
        }
        scanner.id()
    }

    #[test]
    fn the_top_level_id_is_found_wherever_it_is() {
        assert_eq!(
            id_of(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#),
            Some(NumberOrString::Number(7))
        );
        assert_eq!(
            id_of(r#"{"method":"x","params":{"id":1,"a":[{"id":2}]}, "id" : "req-\"9\""}"#),
            Some(NumberOrString::String(Arc::from("req-\"9\"")))
        );
        assert_eq!(
            id_of(r#"{"params":{"text":"\"id\": 5, \\"},"id":-3}"#),
            Some(NumberOrString::Number(-3))
        );
        assert_eq!(id_of(r#"{"idx":1,"method":"x"}"#), None);
        assert_eq!(id_of(r#"{"id":null}"#), None);
        assert_eq!(id_of("not json at all"), None);
    }

    #[tokio::test]
    async fn mcp_drops_a_request_over_16_mib_without_an_answer_now_answered() {
        // Regression (issue 21, defect 8): the oversized line is reported with its id; the
        // lines around it pass through unchanged.
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"tools/call\",\"params\":{{\"x\":\"{}\"}}}}\n",
            "a".repeat(MAX_MESSAGE_BYTES)
        );
        let input = format!("{{\"a\":1}}\n{big}{{\"b\":2}}\n");
        let (sdk_side, mut read_back) = tokio::io::duplex(1 << 20);
        let (notices, mut received) = mpsc::unbounded_channel();
        filter(input.as_bytes(), sdk_side, notices).await;
        let mut passed = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut read_back, &mut passed)
            .await
            .unwrap();
        assert_eq!(passed, "{\"a\":1}\n{\"b\":2}\n");
        let notice = received.recv().await.unwrap();
        assert_eq!(notice.id, Some(NumberOrString::Number(41)));
        assert_eq!(notice.bytes, big.len());
        let text = serde_json::to_string(&answer(&notice)).unwrap();
        assert!(
            text.contains("\"id\":41") && text.contains("-32600"),
            "{text}"
        );
    }
}
