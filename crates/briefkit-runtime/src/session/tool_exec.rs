//! `--tool-exec CMD`: the brief's own tools run by a command of the operator's, one
//! process per call. The command (run by `sh -c`, in the current directory) reads one JSON
//! object `{"id", "name", "arguments"}` on its stdin and writes the result on its stdout;
//! an exit status other than 0 makes the result an error the model reads (with the end of
//! its stderr). A call that runs past [`ToolExec::timeout`] is killed (its whole process
//! group) and answered with an error saying so; stdout past [`MAX_OUTPUT`] bytes is an
//! error too (the session never cuts a result, and a result this large is a bug of the
//! tool). Nothing of the session is passed but the call.

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::json;

use super::turn::PendingCall;
use crate::error::{Error, Result};

/// The default time a tool command may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// The most bytes of a tool command's stdout read (a result is appended whole, and an
/// entry holds at most `files::limits::SESSION_ENTRY`).
pub const MAX_OUTPUT: usize = 1024 * 1024;
/// The bytes of a failing tool command's stderr the model is shown (its end).
const STDERR_TAIL: usize = 2048;

/// How the brief's tools are run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolExec {
    /// Run by `sh -c`.
    pub command: String,
    pub timeout: Duration,
}

impl ToolExec {
    pub fn new(command: String, timeout: Option<Duration>) -> Result<ToolExec> {
        if command.trim().is_empty() {
            return Err(Error::input("--tool-exec is empty"));
        }
        Ok(ToolExec {
            command,
            timeout: timeout.unwrap_or(DEFAULT_TIMEOUT),
        })
    }
}

/// What one run of the tool command gave.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolOutput {
    /// `ok` (exit 0), `error` (another exit status), `timeout` or `too_large`.
    pub outcome: &'static str,
    /// The result appended: stdout, or for an error what happened.
    pub text: String,
    pub exit_code: Option<i32>,
    pub millis: u64,
}

impl ToolExec {
    /// Runs `call`; only a failure to start the command at all is an `Err` (exit 2).
    pub fn run(&self, call: &PendingCall) -> Result<ToolOutput> {
        let started = Instant::now();
        let input = json!({"id": call.id, "name": call.name, "arguments": call.arguments});
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(&self.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group: a timeout kills what it started too.
            .process_group(0)
            .spawn()
            .map_err(|e| {
                Error::input(format!(
                    "--tool-exec `{}` could not start: {e}",
                    self.command
                ))
            })?;
        let mut stdin = child.stdin.take().expect("piped");
        let line = format!("{input}\n");
        // A command that does not read its stdin is not an error: it may not need it.
        let writer = thread::spawn(move || {
            let _ = stdin.write_all(line.as_bytes());
        });
        let stdout = read_capped(child.stdout.take().expect("piped"), MAX_OUTPUT);
        let stderr = read_capped(child.stderr.take().expect("piped"), 64 * 1024);
        let status = wait(&mut child, self.timeout);
        let _ = writer.join();
        let millis = started.elapsed().as_millis() as u64;
        let Some(status) = status else {
            kill_group(&child);
            let _ = child.wait();
            return Ok(ToolOutput {
                outcome: "timeout",
                text: format!(
                    "error: the tool `{}` did not finish within {} s and was stopped",
                    call.name,
                    self.timeout.as_secs()
                ),
                exit_code: None,
                millis,
            });
        };
        let (out, over) = stdout.join().unwrap_or_default();
        let (err, _) = stderr.join().unwrap_or_default();
        if over {
            return Ok(ToolOutput {
                outcome: "too_large",
                text: format!(
                    "error: the tool `{}` wrote more than {MAX_OUTPUT} bytes; nothing of it was kept",
                    call.name
                ),
                exit_code: status.code(),
                millis,
            });
        }
        let out = String::from_utf8_lossy(&out).trim_end().to_string();
        if status.success() {
            return Ok(ToolOutput {
                outcome: "ok",
                text: if out.trim().is_empty() {
                    "(the tool wrote nothing)".into()
                } else {
                    out
                },
                exit_code: Some(0),
                millis,
            });
        }
        let err = String::from_utf8_lossy(&err);
        let err = tail(err.trim_end(), STDERR_TAIL);
        let how = match (status.code(), status.signal()) {
            (Some(code), _) => format!("exited with status {code}"),
            (None, Some(signal)) => format!("was stopped by signal {signal}"),
            _ => "failed".into(),
        };
        let mut text = format!("error: the tool `{}` {how}", call.name);
        for part in [out.trim(), err.trim()] {
            if !part.is_empty() {
                text.push_str("\n\n");
                text.push_str(part);
            }
        }
        Ok(ToolOutput {
            outcome: "error",
            text,
            exit_code: status.code(),
            millis,
        })
    }
}

/// Reads up to `cap` bytes on a thread, then drains the rest (so the child never blocks
/// on a full pipe); says whether there was more.
fn read_capped(
    mut from: impl Read + Send + 'static,
    cap: usize,
) -> thread::JoinHandle<(Vec<u8>, bool)> {
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 16 * 1024];
        let mut over = false;
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = cap.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                    over |= n > room;
                }
            }
        }
        (kept, over)
    })
}

/// The child's exit status, or `None` once `timeout` passed.
fn wait(child: &mut Child, timeout: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(2);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

fn kill_group(child: &Child) {
    crate::sys::kill_process_group(child);
}

/// The last `max` bytes of `text`, on a character boundary.
fn tail(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut at = text.len() - max;
    while !text.is_char_boundary(at) {
        at += 1;
    }
    &text[at..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call() -> PendingCall {
        PendingCall {
            id: "tool_call_2".into(),
            call_id: "c".into(),
            name: "echo".into(),
            arguments: json!({"x": 1}),
            operation_id: "op_1".into(),
        }
    }

    #[test]
    fn the_call_goes_in_on_stdin_and_the_result_comes_back_from_stdout() {
        let exec = ToolExec::new("cat".into(), None).unwrap();
        let out = exec.run(&call()).unwrap();
        assert_eq!(out.outcome, "ok");
        let value: serde_json::Value = serde_json::from_str(&out.text).unwrap();
        assert_eq!(
            value,
            json!({"id": "tool_call_2", "name": "echo", "arguments": {"x": 1}})
        );
    }

    #[test]
    fn a_non_zero_exit_is_an_error_result_with_the_end_of_stderr() {
        let exec = ToolExec::new("echo nope >&2; exit 3".into(), None).unwrap();
        let out = exec.run(&call()).unwrap();
        assert_eq!(out.outcome, "error");
        assert_eq!(out.exit_code, Some(3));
        assert!(
            out.text.contains("status 3") && out.text.contains("nope"),
            "{}",
            out.text
        );
    }

    #[test]
    fn a_command_past_its_timeout_is_stopped_with_what_it_started() {
        let exec =
            ToolExec::new("sleep 30 & wait".into(), Some(Duration::from_millis(100))).unwrap();
        let out = exec.run(&call()).unwrap();
        assert_eq!(out.outcome, "timeout");
        assert!(out.text.contains("did not finish"), "{}", out.text);
    }

    #[test]
    fn output_past_the_cap_is_an_error_not_a_cut_result() {
        let exec = ToolExec::new(format!("head -c {} /dev/zero", MAX_OUTPUT + 10), None).unwrap();
        let out = exec.run(&call()).unwrap();
        assert_eq!(out.outcome, "too_large");
    }
}
