//! MCP over stdio with a bounded message size that is answered, not dropped.
//!
//! The SDK's stdio transport reads at most 16 MiB per message and silently discards a
//! longer line, so a client that sent one waits for its answer forever. Here stdin is read
//! first by a filter that passes every line up to [`MAX_MESSAGE_BYTES`] on to the SDK
//! unchanged and, for a longer one, keeps nothing but the request's `id` (read as the bytes
//! stream past, in constant memory) and has the transport answer that id with a JSON-RPC
//! `Invalid Request` error naming the limit. The answer goes out through the SDK's own
//! writer, so it never interleaves with another message; the server stays up.
//!
//! The same filter answers what JSON-RPC 2.0 says must be answered and the SDK drops: a
//! line that is not JSON gets a `Parse error` (-32700, `id: null`), and a JSON value that
//! is not a request, notification or response (no `method`, `jsonrpc` not `"2.0"`, not an
//! object) gets an `Invalid Request` (-32600, with the request's id when it has one).
//! Responses are never answered, so two peers cannot trade errors forever.
//!
//! The SDK leaves out an absent `id` where JSON-RPC wants `"id": null`, so these answers
//! are written here, not by the SDK: the SDK writes into a pipe, and one writer copies its
//! lines and these answers to the output whole, one at a time, so nothing interleaves.

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

/// What the filter tells the transport to answer instead of passing a line on.
#[derive(Debug)]
enum Notice {
    Oversized(Oversized),
    /// A line JSON-RPC rejects: the answer it gets, as the line to write.
    Refused(Vec<u8>),
}

/// The output, shared by the copy of the SDK's lines and the filter's answers.
type Output<W> = Arc<tokio::sync::Mutex<W>>;

/// The server side of stdio, bounded.
pub struct BoundedStdio<
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
> {
    inner: AsyncRwTransport<RoleServer, tokio::io::DuplexStream, tokio::io::DuplexStream>,
    oversized: mpsc::UnboundedReceiver<Notice>,
    output: Output<W>,
    /// Copies the SDK's lines to the output until the SDK closes its end.
    copier: Option<tokio::task::JoinHandle<()>>,
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
    let (from_sdk, sdk_output) = tokio::io::duplex(64 * 1024);
    let output = Arc::new(tokio::sync::Mutex::new(output));
    let copier = tokio::spawn(copy_lines(sdk_output, output.clone()));
    // The SDK sees only lines the filter let through; its own cap never bites.
    let inner = AsyncRwTransport::new_server(from_filter, from_sdk)
        .with_max_line_length(MAX_MESSAGE_BYTES + 2);
    BoundedStdio {
        inner,
        oversized,
        output,
        copier: Some(copier),
        _input: std::marker::PhantomData,
    }
}

/// Copies the SDK's output to `output` a whole line at a time.
async fn copy_lines<W: AsyncWrite + Unpin>(from_sdk: tokio::io::DuplexStream, output: Output<W>) {
    let mut from_sdk = BufReader::new(from_sdk);
    let mut line = Vec::new();
    loop {
        line.clear();
        match from_sdk.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if write_line(&output, &line).await.is_err() {
            return;
        }
    }
}

async fn write_line<W: AsyncWrite + Unpin>(output: &Output<W>, line: &[u8]) -> std::io::Result<()> {
    let mut output = output.lock().await;
    output.write_all(line).await?;
    output.flush().await
}

/// `reply` as one line, with `"id": null` where the SDK would leave the id out.
fn reply_line(reply: &ServerJsonRpcMessage) -> Vec<u8> {
    let mut value = serde_json::to_value(reply).unwrap_or_default();
    if let Some(object) = value.as_object_mut() {
        object.entry("id").or_insert(serde_json::Value::Null);
    }
    let mut line = serde_json::to_vec(&value).unwrap_or_default();
    line.push(b'\n');
    line
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
            let line = match notice {
                Notice::Oversized(notice) => reply_line(&answer(&notice)),
                Notice::Refused(line) => line,
            };
            // Whole, under the lock the SDK's lines are copied under: nothing interleaves.
            let _ = write_line(&self.output, &line).await;
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let closed = self.inner.close().await;
        // Every line the SDK wrote reaches the output before the server says it is done.
        if let Some(copier) = self.copier.take() {
            let _ = copier.await;
        }
        closed
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

/// The answer JSON-RPC 2.0 requires for `line` when it is not a message the SDK can take:
/// `None` for a message (or a blank line, or a batch, which the SDK judges itself).
fn refusal(line: &[u8]) -> Option<ServerJsonRpcMessage> {
    let text = line
        .strip_prefix(b"\xEF\xBB\xBF".as_slice())
        .unwrap_or(line);
    if text.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let value = match serde_json::from_slice::<serde_json::Value>(text) {
        Ok(value) => value,
        Err(e) => {
            let error =
                ErrorData::parse_error(format!("Parse error: the line is not JSON ({e})"), None);
            return Some(ServerJsonRpcMessage::error(error, None));
        }
    };
    let invalid = |message: &str, id: Option<NumberOrString>| {
        let error = ErrorData::invalid_request(format!("Invalid Request: {message}"), None);
        Some(ServerJsonRpcMessage::error(error, id))
    };
    let object = match &value {
        serde_json::Value::Object(object) => object,
        serde_json::Value::Array(items) if items.is_empty() => {
            return invalid("an empty batch", None);
        }
        serde_json::Value::Array(_) => return None,
        _ => return invalid("a message must be a JSON object", None),
    };
    let id = match object.get("id") {
        Some(serde_json::Value::String(s)) => Some(NumberOrString::String(Arc::from(s.as_str()))),
        Some(serde_json::Value::Number(n)) => n.as_i64().map(NumberOrString::Number),
        _ => None,
    };
    if object.get("jsonrpc").and_then(serde_json::Value::as_str) != Some("2.0") {
        return invalid("`jsonrpc` must be \"2.0\"", id);
    }
    let is_response = object.contains_key("result") || object.contains_key("error");
    match object.get("method") {
        Some(serde_json::Value::String(_)) => None,
        Some(_) => invalid("`method` must be a string", id),
        None if is_response => None,
        None => invalid("no `method`", id),
    }
}

/// Copies lines from `input` to the SDK; reports each line over the limit, or that
/// JSON-RPC refuses, instead.
async fn filter<R, W>(input: R, mut to_sdk: W, notices: mpsc::UnboundedSender<Notice>)
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
                if notices
                    .send(Notice::Oversized(Oversized { id, bytes }))
                    .is_err()
                {
                    return;
                }
            }
            None => {
                if let Some(reply) = refusal(&line) {
                    line.clear();
                    if notices.send(Notice::Refused(reply_line(&reply))).is_err() {
                        return;
                    }
                    continue;
                }
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
        let input = format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"a\"}}\n{big}{{\"jsonrpc\":\"2.0\",\"method\":\"b\"}}\n"
        );
        let (sdk_side, mut read_back) = tokio::io::duplex(1 << 20);
        let (notices, mut received) = mpsc::unbounded_channel();
        filter(input.as_bytes(), sdk_side, notices).await;
        let mut passed = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut read_back, &mut passed)
            .await
            .unwrap();
        assert_eq!(
            passed,
            "{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"b\"}\n"
        );
        let Some(Notice::Oversized(notice)) = received.recv().await else {
            panic!("no oversized notice");
        };
        assert_eq!(notice.id, Some(NumberOrString::Number(41)));
        assert_eq!(notice.bytes, big.len());
        let text = serde_json::to_string(&answer(&notice)).unwrap();
        assert!(
            text.contains("\"id\":41") && text.contains("-32600"),
            "{text}"
        );
    }

    fn code_and_id(line: &str) -> Option<(i64, serde_json::Value)> {
        let reply = serde_json::to_value(refusal(line.as_bytes())?).unwrap();
        Some((
            reply["error"]["code"].as_i64().unwrap(),
            reply["id"].clone(),
        ))
    }

    #[test]
    fn a_line_json_rpc_rejects_gets_the_error_it_prescribes() {
        use serde_json::json;
        assert_eq!(code_and_id("garbage{"), Some((-32700, json!(null))));
        assert_eq!(
            code_and_id("{\"jsonrpc\":\"2.0\",\"id\":1"),
            Some((-32700, json!(null)))
        );
        assert_eq!(
            code_and_id("{\"jsonrpc\":\"2.0\",\"id\":4}"),
            Some((-32600, json!(4)))
        );
        assert_eq!(
            code_and_id("{\"jsonrpc\":\"1.0\",\"id\":\"a\",\"method\":\"ping\"}"),
            Some((-32600, json!("a")))
        );
        assert_eq!(
            code_and_id("{\"id\":2,\"method\":\"ping\"}"),
            Some((-32600, json!(2)))
        );
        assert_eq!(
            code_and_id("{\"jsonrpc\":\"2.0\",\"method\":7}"),
            Some((-32600, json!(null)))
        );
        assert_eq!(code_and_id("42"), Some((-32600, json!(null))));
        assert_eq!(code_and_id("[]"), Some((-32600, json!(null))));
        // Messages, responses included, and blank lines pass on to the SDK.
        for line in [
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
            "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"x\"}}",
            "   \r\n",
        ] {
            assert_eq!(code_and_id(line), None, "{line}");
        }
    }
}
