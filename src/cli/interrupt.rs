//! Ctrl-C during a model call: the call runs on a worker thread while this thread waits,
//! draws the spinner and watches for SIGINT, so an interrupted call can still be recorded
//! in the ledger (as `cancelled`) before the process exits. Not a subcommand.

use std::sync::mpsc;
use std::time::Duration;

use crate::cli::ui::Ui;
use crate::error::{Error, Result};
use crate::sys::SigintWatch;

/// Runs `work` on a worker thread and waits for it, with a spinner on stderr when stderr is
/// a terminal. SIGINT during the wait returns an [`crate::error::ErrorKind::Interrupted`] error (exit
/// 130) at once, saying `label` was cancelled (the worker is left to die with the process);
/// SIGINT's default action is restored afterwards. A worker that panicked is an internal
/// error (its message is already on stderr).
pub fn run<T: Send + 'static>(
    ui: &Ui,
    label: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T> {
    let sigint = SigintWatch::start();
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(work());
    });
    let spin = ui.stderr_is_terminal() && !ui.quiet();
    let term = console::Term::stderr();
    let frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
    let mut frame = 0;
    let outcome = loop {
        if sigint.seen() {
            break Err(Error::interrupted(format!(
                "cancelled by Ctrl-C while {label}; nothing saved"
            )));
        }
        if spin {
            let _ = term.write_str(&format!("\r{} {label}…", frames[frame % frames.len()]));
            frame += 1;
        }
        match receive.recv_timeout(Duration::from_millis(80)) {
            Ok(value) => break Ok(value),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                break Err(Error::internal(format!("{label} stopped unexpectedly")));
            }
        }
    };
    if spin {
        let _ = term.clear_line();
    }
    drop(sigint);
    outcome
}
