//! A scripted model on loopback, for trying `brief session turn` without a provider: it
//! speaks both wire formats (`POST /v1/chat/completions` as OpenAI, `POST /v1/messages`
//! as Anthropic), streamed, and answers each request with the next step of a script — a
//! JSON array whose steps are `{"text": "..."}`, `{"tool_calls": [{"name", "arguments"}]}`
//! or both. It reports usage the way a prefix cache would: the longest prefix a request
//! shares with an earlier one counts as cached (4 bytes a token), so the ledger shows what
//! a purge or a compaction costs. It prints its base URL, then serves until killed.
//!
//! ```sh
//! cargo run --example scripted_model -- script.json &   # prints http://127.0.0.1:PORT
//! brief session turn run/s1 --provider openai --model scripted --base-url http://127.0.0.1:PORT/v1
//! ```

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

use serde_json::{Value, json};

fn main() -> std::io::Result<()> {
    let path = std::env::args()
        .nth(1)
        .expect("usage: scripted_model SCRIPT.json");
    let script: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&path)?).expect("the script is a JSON array");
    let listener = TcpListener::bind("127.0.0.1:0")?;
    println!("http://{}", listener.local_addr()?);
    std::io::stdout().flush()?;
    let mut seen: Vec<Vec<u8>> = Vec::new();
    for (n, stream) in listener.incoming().enumerate() {
        let mut stream = stream?;
        let (target, body) = read_request(&mut stream)?;
        let step = script
            .get(n)
            .cloned()
            .unwrap_or_else(|| json!({"text": "(the script has ended)"}));
        // A provider caches tools, then system, then messages: compare in that order.
        let request: Value = serde_json::from_slice(&body).unwrap_or_default();
        let key = format!(
            "{}{}{}",
            request["tools"], request["system"], request["messages"]
        )
        .into_bytes();
        let shared = seen
            .iter()
            .map(|old| key.iter().zip(old).take_while(|(a, b)| a == b).count())
            .max()
            .unwrap_or(0);
        let (input, cached) = ((key.len() / 4) as u64, (shared / 4) as u64);
        seen.push(key);
        let events = if target.ends_with("/messages") {
            anthropic(&step, input, cached)
        } else {
            openai(&step, input, cached)
        };
        let mut reply = String::from(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
        );
        reply.push_str(&events);
        stream.write_all(reply.as_bytes())?;
    }
    Ok(())
}

fn read_request(stream: &mut TcpStream) -> std::io::Result<(String, Vec<u8>)> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let target = line
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_string();
    let mut length = 0;
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
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok((target, body))
}

fn calls(step: &Value) -> Vec<Value> {
    step["tool_calls"].as_array().cloned().unwrap_or_default()
}

fn openai(step: &Value, input: u64, cached: u64) -> String {
    let frame = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"model": "scripted", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    let mut out = frame(json!({"role": "assistant", "content": ""}), Value::Null);
    if let Some(text) = step["text"].as_str() {
        for piece in text.split_inclusive(' ') {
            out.push_str(&frame(json!({"content": piece}), Value::Null));
        }
    }
    let calls = calls(step);
    for (i, call) in calls.iter().enumerate() {
        let arguments = call["arguments"].to_string();
        let (head, tail) = halves(&arguments);
        out.push_str(&frame(json!({"tool_calls": [{"index": i, "id": format!("call_{i}"), "type": "function", "function": {"name": call["name"], "arguments": head}}]}), Value::Null));
        out.push_str(&frame(
            json!({"tool_calls": [{"index": i, "function": {"arguments": tail}}]}),
            Value::Null,
        ));
    }
    let finish = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    out.push_str(&frame(json!({}), json!(finish)));
    let usage = json!({"prompt_tokens": input, "completion_tokens": 20, "prompt_tokens_details": {"cached_tokens": cached}});
    out.push_str(&format!(
        "data: {}\n\ndata: [DONE]\n\n",
        json!({"model": "scripted", "choices": [], "usage": usage})
    ));
    out
}

fn anthropic(step: &Value, input: u64, cached: u64) -> String {
    let event = |data: Value| {
        format!(
            "event: {}\ndata: {data}\n\n",
            data["type"].as_str().unwrap_or("")
        )
    };
    let usage = json!({"input_tokens": input - cached, "cache_read_input_tokens": cached, "cache_creation_input_tokens": 0, "output_tokens": 1});
    let mut out =
        event(json!({"type": "message_start", "message": {"model": "scripted", "usage": usage}}));
    let mut index = 0;
    if let Some(text) = step["text"].as_str() {
        out.push_str(&event(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})));
        for piece in text.split_inclusive(' ') {
            out.push_str(&event(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}})));
        }
        out.push_str(&event(json!({"type": "content_block_stop", "index": 0})));
        index = 1;
    }
    let calls = calls(step);
    for (i, call) in calls.iter().enumerate() {
        let at = index + i;
        out.push_str(&event(json!({"type": "content_block_start", "index": at, "content_block": {"type": "tool_use", "id": format!("toolu_{i}"), "name": call["name"], "input": {}}})));
        let arguments = call["arguments"].to_string();
        let (head, tail) = halves(&arguments);
        for part in [head, tail] {
            out.push_str(&event(json!({"type": "content_block_delta", "index": at, "delta": {"type": "input_json_delta", "partial_json": part}})));
        }
        out.push_str(&event(json!({"type": "content_block_stop", "index": at})));
    }
    let stop = if calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    out.push_str(&event(json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 20}})));
    out.push_str(&event(json!({"type": "message_stop"})));
    out
}

/// The text in two pieces, cut on a character boundary near its middle.
fn halves(text: &str) -> (&str, &str) {
    let middle = (0..=text.len() / 2)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    text.split_at(middle)
}
