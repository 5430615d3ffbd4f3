//! The proxy's memory does not follow an answer's size (issue 37, defect 1): the meter kept
//! every streamed answer's text, so a 2 GiB answer took 2.1 GB. A 1 GiB streamed answer
//! goes through the real proxy from an upstream that makes it on the fly, and the proxy's
//! peak resident size (`VmHWM` in /proc) stays under 100 MB; the row still has the usage
//! that came after the gigabyte.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::thread;

use crate::common::proxy::{Proxy, open};
use crate::loopback::fixtures::OPENAI_USAGE;

const ANSWER_BYTES: usize = 1 << 30;

/// An upstream that answers one streamed call with `ANSWER_BYTES` of text deltas (64 KiB
/// each), then usage and `[DONE]`, never holding more than one event.
fn gigabyte_upstream() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    thread::spawn(move || {
        let Ok((mut stream, _)) = listener.accept() else {
            return;
        };
        crate::loopback::read_request(&mut stream);
        let delta = format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{}\"}}}}]}}\n\n",
            "x".repeat(64 * 1024)
        );
        let chunk = |data: &[u8]| {
            let mut out = format!("{:x}\r\n", data.len()).into_bytes();
            out.extend_from_slice(data);
            out.extend_from_slice(b"\r\n");
            out
        };
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
        if stream.write_all(head.as_bytes()).is_err() {
            return;
        }
        let piece = chunk(delta.as_bytes());
        let mut sent = 0;
        while sent < ANSWER_BYTES {
            if stream.write_all(&piece).is_err() {
                return;
            }
            sent += delta.len();
        }
        let tail = format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{}},\"finish_reason\":\"stop\"}}]}}\n\ndata: {{\"choices\":[],\"usage\":{OPENAI_USAGE}}}\n\ndata: [DONE]\n\n"
        );
        let _ = stream.write_all(&chunk(tail.as_bytes()));
        let _ = stream.write_all(b"0\r\n\r\n");
    });
    url
}

/// The peak resident size of a process, in bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("VmHWM in /proc status");
    let kb: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap();
    kb * 1024
}

#[test]
fn the_proxy_relays_a_one_gigabyte_stream_in_under_100_mb() {
    let upstream = gigabyte_upstream();
    let proxy = Proxy::start(&upstream, &[]);
    let body =
        r#"{"model":"gpt-4.1-mini","stream":true,"messages":[{"role":"user","content":"hi"}]}"#;
    let mut stream = open(
        &proxy.url,
        "POST",
        "/v1/chat/completions",
        &[("authorization", "Bearer sk-test-memory")],
        body.as_bytes(),
    );
    let mut received = 0usize;
    let mut tail = Vec::new();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = stream.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        received += n;
        tail.extend_from_slice(&buf[..n]);
        let keep = tail.len().saturating_sub(4096);
        tail.drain(..keep);
    }
    assert!(received > ANSWER_BYTES, "{received} bytes relayed");
    assert!(String::from_utf8_lossy(&tail).contains("[DONE]"));
    let rows = proxy.wait_rows_for(1, std::time::Duration::from_secs(10));
    assert_eq!(rows[0]["status"], "ok", "{}", rows[0]);
    assert_eq!(rows[0]["input_tokens"], 2048, "{}", rows[0]);
    let peak = peak_rss(proxy.pid());
    assert!(
        peak < 100 * 1024 * 1024,
        "the proxy's peak RSS was {} MB for a 1 GiB answer",
        peak / 1024 / 1024
    );
}
