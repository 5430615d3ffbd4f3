//! A tiny HTTP server on loopback that answers like a model provider: OpenAI chat
//! completions (`…/chat/completions`) or Anthropic messages (`…/messages`), streamed when
//! the request asks for it. It records every request, so a test can prove what was sent
//! and that nothing was.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// How the server answers.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A complete answer with this text.
    Text(String),
    /// A stream cut off after the first part of this text, without its end.
    Truncated(String),
    /// An HTTP error status with a body.
    Status(u16, String),
}

pub struct Server {
    pub base_url: String,
    pub requests: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    /// Starts a server answering every request with `reply`.
    pub fn start(reply: Reply) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let log = Arc::clone(&log);
                let reply = reply.clone();
                std::thread::spawn(move || serve(stream, &reply, &log));
            }
        });
        Server { base_url, requests }
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, reply: &Reply, log: &Mutex<Vec<Request>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    loop {
        let Some(request) = read_request(&mut reader) else {
            return;
        };
        log.lock().unwrap().push(request.clone());
        let mut out = stream.try_clone().unwrap();
        let keep_open = respond(&mut out, &request, reply);
        if !keep_open {
            return;
        }
    }
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

fn json_string(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

/// Writes the answer; returns whether the connection stays usable.
fn respond(out: &mut TcpStream, request: &Request, reply: &Reply) -> bool {
    let anthropic = request.path.ends_with("/messages");
    let stream = serde_json::from_str::<serde_json::Value>(&request.body)
        .ok()
        .and_then(|b| b["stream"].as_bool())
        .unwrap_or(false);
    let (text, truncated) = match reply {
        Reply::Status(code, body) => {
            let _ = write!(
                out,
                "HTTP/1.1 {code} Error\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            );
            return true;
        }
        Reply::Text(text) => (text.as_str(), false),
        Reply::Truncated(text) => (text.as_str(), true),
    };
    // Split the answer in two pieces to exercise delta handling.
    let cut = text
        .char_indices()
        .nth(text.chars().count() / 2)
        .map_or(text.len(), |(i, _)| i);
    let pieces = [&text[..cut], &text[cut..]];
    if !stream {
        let body = if anthropic {
            format!(
                r#"{{"id":"msg_1","type":"message","role":"assistant","model":"test-model","content":[{{"type":"text","text":{}}}],"stop_reason":"end_turn","usage":{{"input_tokens":120,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"output_tokens":30}}}}"#,
                json_string(text)
            )
        } else {
            format!(
                r#"{{"id":"c1","object":"chat.completion","model":"test-model","choices":[{{"index":0,"message":{{"role":"assistant","content":{}}},"finish_reason":"stop"}}],"usage":{{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150,"prompt_tokens_details":{{"cached_tokens":0}}}}}}"#,
                json_string(text)
            )
        };
        let body = if truncated {
            body[..body.len() / 2].to_string()
        } else {
            body
        };
        let length = if truncated {
            body.len() + 50
        } else {
            body.len()
        };
        let _ = write!(
            out,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {length}\r\n\r\n{body}"
        );
        let _ = out.flush();
        return !truncated;
    }
    let mut events = Vec::new();
    if anthropic {
        events.push(r#"event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"test-model","content":[],"usage":{"input_tokens":120,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"output_tokens":1}}}"#.to_string());
        events.push(
            r#"event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#
                .to_string(),
        );
        for piece in pieces {
            events.push(format!(
                "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":{}}}}}",
                json_string(piece)
            ));
        }
        events.push(
            r#"event: content_block_stop
data: {"type":"content_block_stop","index":0}"#
                .to_string(),
        );
        events.push(
            r#"event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":30}}"#
                .to_string(),
        );
        events.push("event: message_stop\ndata: {\"type\":\"message_stop\"}".to_string());
    } else {
        for piece in pieces {
            events.push(format!(
                "data: {{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"test-model\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":{}}},\"finish_reason\":null}}]}}",
                json_string(piece)
            ));
        }
        events.push(r#"data: {"id":"c1","object":"chat.completion.chunk","model":"test-model","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#.to_string());
        events.push(r#"data: {"id":"c1","object":"chat.completion.chunk","model":"test-model","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150,"prompt_tokens_details":{"cached_tokens":0}}}"#.to_string());
        events.push("data: [DONE]".to_string());
    }
    if truncated {
        // The first piece only, then the connection drops mid-answer.
        events.truncate(if anthropic { 3 } else { 1 });
    }
    let _ = write!(
        out,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n"
    );
    for event in events {
        let _ = write!(out, "{event}\n\n");
        let _ = out.flush();
    }
    false
}
