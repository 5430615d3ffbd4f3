//! A pretend provider on loopback with a prompt cache, to try `brief probe` without a key.
//!
//! It answers OpenAI chat completions (`/v1/chat/completions`) and Anthropic messages
//! (`/v1/messages`) with a one-token streamed answer and usage in each provider's own shape.
//! The cache is what the real ones do in miniature: the cacheable part (OpenAI: everything
//! before the last message, in 128-token steps; Anthropic: tools and system up to the last
//! `cache_control`) is cached once it reaches `--min` tokens, written on first sight and read
//! on every later one. Tokens are estimated as bytes / 4.
//!
//! ```sh
//! cargo run --example cache_server -- --port 8788 [--min 1024] [--no-cached-field]
//! brief probe BRIEF --provider openai --model demo --base-url http://127.0.0.1:8788/v1
//! ```

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

use serde_json::{Value, json};

struct Config {
    min: u64,
    cached_field: bool,
}

fn main() {
    let mut port = 8788u16;
    let mut config = Config {
        min: 1024,
        cached_field: true,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => port = args.next().and_then(|p| p.parse().ok()).expect("--port N"),
            "--min" => config.min = args.next().and_then(|p| p.parse().ok()).expect("--min N"),
            "--no-cached-field" => config.cached_field = false,
            other => panic!("unknown argument {other}"),
        }
    }
    let listener = TcpListener::bind(("127.0.0.1", port)).expect("bind 127.0.0.1");
    eprintln!(
        "cache_server on http://{} (minimum {} tokens)",
        listener.local_addr().expect("addr"),
        config.min
    );
    let mut cache = HashSet::new();
    for stream in listener.incoming().flatten() {
        if let Err(err) = serve(stream, &config, &mut cache) {
            eprintln!("cache_server: {err}");
        }
    }
}

fn serve(stream: TcpStream, config: &Config, cache: &mut HashSet<String>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut length = 0usize;
    loop {
        let mut header = String::new();
        reader.read_line(&mut header)?;
        if header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let anthropic = path.ends_with("/messages");
    let (cacheable, rest) = split(&request, anthropic);
    let tokens = |text: &str| (text.len() as u64).div_ceil(4);
    let mut prefix_tokens = tokens(&cacheable);
    if !anthropic {
        prefix_tokens -= prefix_tokens % 128;
    }
    let (mut read, mut write) = (0, 0);
    if prefix_tokens >= config.min {
        if cache.insert(cacheable.clone()) {
            write = prefix_tokens;
        } else {
            read = prefix_tokens;
        }
    }
    let total = tokens(&cacheable) + tokens(&rest);
    let model = request["model"].as_str().unwrap_or("demo").to_string();
    let sse = if anthropic {
        let mut usage = json!({"input_tokens": total - read - write, "output_tokens": 1});
        if config.cached_field {
            usage["cache_creation_input_tokens"] = json!(write);
            usage["cache_read_input_tokens"] = json!(read);
        }
        let events = [
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": model, "content": [], "stop_reason": null, "usage": usage}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Pong"}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "message_delta", "delta": {"stop_reason": "max_tokens", "stop_sequence": null}, "usage": {"output_tokens": 1}}),
            json!({"type": "message_stop"}),
        ];
        events
            .iter()
            .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or("")))
            .collect::<String>()
    } else {
        let mut usage =
            json!({"prompt_tokens": total, "completion_tokens": 1, "total_tokens": total + 1});
        if config.cached_field {
            usage["prompt_tokens_details"] = json!({"cached_tokens": read});
        }
        let chunks = [
            json!({"id": "c1", "model": model, "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Pong"}, "finish_reason": null}], "usage": null}),
            json!({"id": "c1", "model": model, "choices": [{"index": 0, "delta": {}, "finish_reason": "length"}], "usage": null}),
            json!({"id": "c1", "model": model, "choices": [], "usage": usage}),
        ];
        let mut text: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
        text.push_str("data: [DONE]\n\n");
        text
    };
    eprintln!("{path}: cacheable {prefix_tokens} tokens, read {read}, written {write}");
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n{sse}"
    )?;
    stream.flush()
}

/// The cacheable part of a request and the rest, as text.
fn split(request: &Value, anthropic: bool) -> (String, String) {
    if anthropic {
        let blocks = request["system"].as_array().cloned().unwrap_or_default();
        let marked = blocks
            .iter()
            .rposition(|b| b.get("cache_control").is_some());
        let (cached, rest) = match marked {
            Some(at) => blocks.split_at(at + 1),
            None => (&blocks[..0], &blocks[..]),
        };
        let tools = if marked.is_some() {
            request["tools"].to_string()
        } else {
            String::new()
        };
        (
            format!("{tools}{}", json!(cached)),
            format!("{}{}", json!(rest), request["messages"]),
        )
    } else {
        let messages = request["messages"].as_array().cloned().unwrap_or_default();
        let (before, last) = messages.split_at(messages.len().saturating_sub(1));
        (
            format!("{}{}", request["tools"], json!(before)),
            json!(last).to_string(),
        )
    }
}
