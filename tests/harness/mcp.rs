//! `brief mcp` over stdio: the child started from a prepared command, the JSON-RPC
//! handshake done, then one line sent and one answer read at a time.

use std::io::{BufRead, BufReader, Lines, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

/// A running `brief mcp` that has been initialised.
pub struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Lines<BufReader<ChildStdout>>,
}

impl Mcp {
    /// Spawns `command` (already `brief mcp ...` with its folder and environment), stdout
    /// piped and stderr dropped, and does the handshake.
    pub fn start(command: &mut Command) -> Mcp {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut mcp = Mcp {
            child,
            stdin,
            lines,
        };
        mcp.send_line(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}})
            .to_string(),
        );
        let _ = mcp.lines.next();
        mcp.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        mcp
    }

    /// Writes one line as it is, message or not.
    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line the server wrote, as JSON.
    pub fn answer(&mut self) -> Value {
        let line = self.lines.next().expect("an answer").unwrap();
        serde_json::from_str(&line).unwrap()
    }

    /// Sends `request` and reads its answer.
    pub fn ask(&mut self, request: &Value) -> Value {
        self.send_line(&request.to_string());
        self.answer()
    }

    /// Closes stdin and waits for the server to end.
    pub fn finish(mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}
