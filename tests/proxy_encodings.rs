//! Compressed streamed answers through `brief proxy` (issue 33): an upstream that
//! compresses each wire's event stream in the encoding the client accepts — gzip, deflate,
//! br, zstd — flushing every event as a streaming server does. Each answer is recorded
//! `ok` with the tokens the upstream reported, whether the client reads to the end or
//! hangs up right after the last event (as Codex does); an encoding the proxy cannot read
//! is `ok` with "usage not read", never a failure.

use std::io::{Read, Write};
use std::time::Duration;

use serde_json::Value;

use crate::common::proxy::{Proxy, Script, Upstream, dechunk, open};
use crate::loopback::fixtures::{
    OPENAI_USAGE, anthropic_stream, gemini_stream, openai_stream, responses_stream,
};

const ENCODINGS: [&str; 4] = ["gzip", "deflate", "br", "zstd"];

/// The four streamed wires: path, request body, the upstream's whole event stream.
fn wires() -> Vec<(&'static str, &'static str, String)> {
    let chat =
        r#"{"model":"gpt-4.1-mini","stream":true,"messages":[{"role":"user","content":"hi"}]}"#;
    let responses = r#"{"model":"gpt-5-codex","stream":true,"input":"hi"}"#;
    let anthropic = r#"{"model":"claude-sonnet-4-5","stream":true,"max_tokens":9,"messages":[{"role":"user","content":"hi"}]}"#;
    let gemini = r#"{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}"#;
    vec![
        (
            "/v1/chat/completions",
            chat,
            openai_stream("Hello there.", Some("stop"), Some(OPENAI_USAGE), true),
        ),
        (
            "/v1/responses",
            responses,
            responses_stream("Hello there.", true),
        ),
        (
            "/v1/messages",
            anthropic,
            anthropic_stream("Hello there.", Some("end_turn"), true),
        ),
        (
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            gemini,
            gemini_stream("Hello there.", true),
        ),
    ]
}

/// The events of a stream, each with its blank line.
fn events(stream: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = stream;
    while !rest.is_empty() {
        let end = [
            rest.find("\r\n\r\n").map(|at| at + 4),
            rest.find("\n\n").map(|at| at + 2),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(rest.len());
        out.push(&rest[..end]);
        rest = &rest[end..];
    }
    out
}

/// Each event compressed and flushed to the wire on its own, then the encoder's trailer;
/// the same input gives the same bytes, so a test knows what the upstream sends.
fn compressed(encoding: &str, stream: &str) -> Vec<Vec<u8>> {
    fn pieces<W: Write>(
        mut encoder: W,
        events: &[&str],
        take: impl Fn(&mut W) -> Vec<u8>,
        finish: impl FnOnce(W) -> Vec<u8>,
    ) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for event in events {
            encoder.write_all(event.as_bytes()).unwrap();
            encoder.flush().unwrap();
            out.push(take(&mut encoder));
        }
        out.push(finish(encoder));
        out
    }
    use flate2::Compression;
    let events = events(stream);
    match encoding {
        "gzip" => pieces(
            flate2::write::GzEncoder::new(Vec::new(), Compression::default()),
            &events,
            |e| std::mem::take(e.get_mut()),
            |e| e.finish().unwrap(),
        ),
        "deflate" => pieces(
            flate2::write::ZlibEncoder::new(Vec::new(), Compression::default()),
            &events,
            |e| std::mem::take(e.get_mut()),
            |e| e.finish().unwrap(),
        ),
        "br" => pieces(
            brotli::CompressorWriter::new(Vec::new(), 4096, 5, 22),
            &events,
            |e| std::mem::take(e.get_mut()),
            |e| e.into_inner(),
        ),
        "zstd" => pieces(
            zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap(),
            &events,
            |e| std::mem::take(e.get_mut()),
            |e| e.finish().unwrap(),
        ),
        // An encoding nobody decodes: the stream as it is, labelled (no trailer).
        _ => events
            .iter()
            .map(|e| e.as_bytes().to_vec())
            .chain([Vec::new()])
            .collect(),
    }
}

/// Chunked pieces; with `hang`, the trailer and the body's end never come (the client is
/// expected to hang up first).
fn script(encoding: &str, pieces: &[Vec<u8>], hang: bool) -> Script {
    // With `hang`, the last piece (the encoder's trailer) is kept back.
    let sent = if hang {
        &pieces[..pieces.len() - 1]
    } else {
        pieces
    };
    let mut chunks: Vec<Vec<u8>> = sent
        .iter()
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut chunk = format!("{:x}\r\n", p.len()).into_bytes();
            chunk.extend_from_slice(p);
            chunk.extend_from_slice(b"\r\n");
            chunk
        })
        .collect();
    if !hang {
        chunks.push(b"0\r\n\r\n".to_vec());
    }
    Script {
        head: format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-encoding: {encoding}\r\ntransfer-encoding: chunked\r\n\r\n"
        ),
        pieces: chunks,
        pause: Duration::ZERO,
        hang: hang.then(|| Duration::from_secs(10)),
        keep_alive: false,
    }
}

/// Answers each wire's stream in the first encoding the request accepts; `x-test-hang`
/// keeps the trailer back.
fn compressing_upstream() -> Upstream {
    Upstream::start(|request| {
        let path = request.path();
        let (_, _, stream) = wires()
            .into_iter()
            .find(|(p, _, _)| *p == path)
            .expect("a streamed wire");
        let encoding = request
            .header("accept-encoding")
            .and_then(|a| a.split(',').next().map(|e| e.trim().to_string()))
            .unwrap_or_default();
        let hang = request.header("x-test-hang").is_some();
        script(&encoding, &compressed(&encoding, &stream), hang)
    })
}

/// Sends one streamed call; reads the answer to its end, or (`hang_up`) only until every
/// event's bytes came, then closes the connection. Returns the body bytes read.
fn call(proxy: &Proxy, path: &str, body: &str, encoding: &str, hang_up: bool) -> Vec<u8> {
    let mut headers = vec![
        ("accept-encoding", encoding),
        ("content-type", "application/json"),
        ("authorization", "Bearer sk-test-encodings"),
        ("x-api-key", "sk-ant-test-encodings"),
        ("x-goog-api-key", "AIzaSyEncodingsTestabcdefghijklmnopq"),
    ];
    if hang_up {
        headers.push(("x-test-hang", "1"));
    }
    let mut stream = open(&proxy.url, "POST", path, &headers, body.as_bytes());
    let expected: usize = {
        let (_, _, whole) = wires().into_iter().find(|(p, _, _)| *p == path).unwrap();
        let pieces = compressed(encoding, &whole);
        let events = events(&whole).len();
        pieces.iter().take(events).map(Vec::len).sum()
    };
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        let n = stream.read(&mut buf).unwrap_or(0);
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..n]);
        if hang_up {
            let at = raw.windows(4).position(|w| w == b"\r\n\r\n");
            if let Some(at) = at
                && dechunk(&raw[at + 4..]).0.len() >= expected
            {
                break;
            }
        }
    }
    drop(stream);
    let at = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let head = String::from_utf8_lossy(&raw[..at]).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(
        head.contains(&format!("content-encoding: {encoding}")),
        "{head}"
    );
    dechunk(&raw[at..]).0
}

fn token_fields(row: &Value) -> Vec<Value> {
    ["input_tokens", "cached_input_tokens", "output_tokens"]
        .iter()
        .map(|k| row[k].clone())
        .collect()
}

#[test]
fn compressed_streams_are_metered_ok_in_every_encoding_whether_the_client_reads_to_the_end_or_hangs_up()
 {
    let upstream = compressing_upstream();
    let proxy = Proxy::start(&upstream.url, &[]);
    let mut expected_rows = 0;
    for (path, body, stream) in wires() {
        // The tokens the upstream reports, read from the same stream sent plain.
        let plain = call(&proxy, path, body, "identity", false);
        assert_eq!(plain, stream.as_bytes());
        expected_rows += 1;
        let rows = proxy.wait_rows(expected_rows);
        let reported = token_fields(&rows[expected_rows - 1]);
        assert!(reported[0].is_u64(), "{path}: {rows:?}");
        for encoding in ENCODINGS {
            for hang_up in [false, true] {
                let got = call(&proxy, path, body, encoding, hang_up);
                let pieces = compressed(encoding, &stream);
                if !hang_up {
                    assert_eq!(got, pieces.concat(), "{path} {encoding}: relayed unchanged");
                }
                expected_rows += 1;
                let rows = proxy.wait_rows_for(expected_rows, Duration::from_secs(10));
                assert_eq!(rows.len(), expected_rows, "{path} {encoding} {hang_up}");
                let row = &rows[expected_rows - 1];
                assert_eq!(
                    row["status"], "ok",
                    "{path} {encoding} hang_up={hang_up}: {row}"
                );
                assert_eq!(row["error"], Value::Null, "{path} {encoding}: {row}");
                assert_eq!(token_fields(row), reported, "{path} {encoding}: {row}");
            }
        }
    }
}

#[test]
fn an_encoding_the_proxy_cannot_read_is_ok_with_usage_not_read_never_a_failure() {
    let upstream = compressing_upstream();
    let proxy = Proxy::start(&upstream.url, &[]);
    let (path, body, _) = wires().remove(0);
    for (n, hang_up) in [false, true].into_iter().enumerate() {
        call(&proxy, path, body, "x-unheard-of", hang_up);
        let rows = proxy.wait_rows_for(n + 1, Duration::from_secs(10));
        let row = &rows[n];
        assert_eq!(row["status"], "ok", "{row}");
        assert!(
            row["error"].as_str().unwrap().contains("usage not read"),
            "{row}"
        );
        assert_eq!(row["input_tokens"], Value::Null, "{row}");
    }
    let out = crate::common::brief()
        .args(["usage", "--json", "--ledger"])
        .arg(&proxy.ledger)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let report: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(report["total"]["failed"], 0, "{report}");
}
