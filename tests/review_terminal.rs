//! The review question on a terminal (`brief review`, and `brief accept`'s confirmation),
//! answered through a real pseudo-terminal: later prints the commands, edit saves the
//! operator's body over the proposal (judged again) before accept versions it, discard
//! removes it, and a flagged proposal is accepted only when `accept` is typed.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::store::{body, write_proposal};
use crate::common::workspace;

const SHORT_BOOKING: &str = "## Booking\n\nFirst visit: 45 minutes, €80; follow-ups 30 minutes.\nHours and address: https://harbour-physio.example.org/visit.\n";

/// `brief ARGS` in `dir` with stdin and stderr on a pseudo-terminal (so it asks), stdout
/// captured; answers are typed when the terminal shows what they answer.
struct Terminal {
    child: Child,
    master: File,
    screen: Arc<Mutex<Vec<u8>>>,
}

/// A new pseudo-terminal: its master end, and the terminal end a child is given.
fn open_pty() -> (File, File) {
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    let master =
        openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC).expect("openpt");
    grantpt(&master).expect("grantpt");
    unlockpt(&master).expect("unlockpt");
    let name = ptsname(&master, Vec::new()).expect("ptsname");
    let path = std::path::PathBuf::from(std::ffi::OsStr::from_bytes(name.as_bytes()));
    let slave = File::options()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (File::from(master), slave)
}

impl Terminal {
    fn start(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Terminal {
        let (master, slave) = open_pty();
        let mut command = Command::new(env!("CARGO_BIN_EXE_brief"));
        for (name, _) in std::env::vars_os() {
            let name = name.to_string_lossy();
            if name.starts_with("BRIEF_")
                || name.ends_with("_BASE_URL")
                || name.ends_with("_API_KEY")
            {
                command.env_remove(name.as_ref());
            }
        }
        command
            .env_remove("VISUAL")
            .env(
                "XDG_STATE_HOME",
                concat!(env!("CARGO_TARGET_TMPDIR"), "/xdg-state"),
            )
            .envs(env.iter().copied())
            .current_dir(dir)
            .args(["--color", "never"])
            .args(args)
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave))
            .stdout(Stdio::piped());
        let child = command.spawn().unwrap();
        let screen = Arc::new(Mutex::new(Vec::new()));
        let mut reader = master.try_clone().unwrap();
        let shown = Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // The read fails (EIO) once the child has closed the terminal.
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                shown.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Terminal {
            child,
            master,
            screen,
        }
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.screen.lock().unwrap()).into_owned()
    }

    /// Waits until the terminal shows `prompt` for the `nth` time (1-based), then types
    /// `answer` and Enter.
    fn answer(&mut self, prompt: &str, nth: usize, answer: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.screen().matches(prompt).count() < nth {
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("no `{prompt}` #{nth} on the terminal:\n{}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.master
            .write_all(format!("{answer}\r").as_bytes())
            .unwrap();
    }

    /// The exit code, stdout, and what the terminal showed.
    fn finish(mut self) -> (Option<i32>, String, String) {
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("brief did not finish:\n{}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut stdout = String::new();
        self.child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        (status.code(), stdout, self.screen())
    }
}

const QUESTION: &str = "ater? ";

#[test]
fn later_prints_the_commands_and_keeps_the_proposal() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let id = write_proposal(&dir, "booking", SHORT_BOOKING, &[], 1);
    let mut term = Terminal::start(ws.path(), &["review", "clinic", &id], &[]);
    term.answer(QUESTION, 1, "l");
    let (code, stdout, screen) = term.finish();
    assert_eq!(code, Some(0), "{screen}");
    assert!(
        stdout.contains(&format!("accept:   brief accept clinic {id}")),
        "{stdout}"
    );
    assert!(dir.join("proposals").join(format!("{id}.yaml")).exists());
}

#[test]
fn an_edit_is_judged_again_and_saved_before_accept_versions_it() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let id = write_proposal(&dir, "booking", SHORT_BOOKING, &[], 1);
    let edited = "## Booking\n\nFirst visit: 45 minutes, €80; follow-ups 30 minutes. Hours and address: https://harbour-physio.example.org/visit.\n";
    let editor = ws.path().join("editor.sh");
    fs::write(
        &editor,
        format!("#!/bin/sh\nprintf '%s' '{edited}' > \"$1\"\n"),
    )
    .unwrap();
    fs::set_permissions(&editor, fs::Permissions::from_mode(0o755)).unwrap();
    let mut term = Terminal::start(
        ws.path(),
        &["review", "clinic", &id],
        &[("EDITOR", editor.to_str().unwrap())],
    );
    term.answer(QUESTION, 1, "e");
    term.answer(QUESTION, 2, "a");
    let (code, _, screen) = term.finish();
    assert_eq!(code, Some(0), "{screen}");
    assert!(
        screen.contains(
            "accepted: `booking` is now version 2 (wrote versions 1 (import), 2 (compress))"
        ),
        "{screen}"
    );
    assert_eq!(body(&dir.join("items/booking.md")), edited);
    let version = fs::read_to_string(dir.join("history/booking/0002.md")).unwrap();
    assert!(version.ends_with(edited), "{version}");
    assert!(!dir.join("proposals").join(format!("{id}.yaml")).exists());
}

#[test]
fn discard_removes_the_proposal_and_writes_nothing_else() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let before = fs::read_to_string(dir.join("items/booking.md")).unwrap();
    let id = write_proposal(&dir, "booking", SHORT_BOOKING, &[], 1);
    let mut term = Terminal::start(ws.path(), &["review", "clinic", &id], &[]);
    term.answer(QUESTION, 1, "d");
    let (code, _, screen) = term.finish();
    assert_eq!(code, Some(0), "{screen}");
    assert!(
        screen.contains("discarded: nothing else was written"),
        "{screen}"
    );
    assert!(!dir.join("proposals").join(format!("{id}.yaml")).exists());
    assert!(!dir.join("history").exists());
    assert_eq!(
        fs::read_to_string(dir.join("items/booking.md")).unwrap(),
        before
    );
}

#[test]
fn accept_on_a_terminal_takes_a_flagged_proposal_only_when_accept_is_typed() {
    let ws = workspace("clinic");
    let dir = ws.path().join("clinic");
    let before = fs::read_to_string(dir.join("items/booking.md")).unwrap();
    // The stored report says clean; the guard, run again, finds the price and URL gone.
    let lossy = "## Booking\n\nFirst visit: 45 minutes; follow-ups 30 minutes.\n";
    let id = write_proposal(&dir, "booking", lossy, &[], 1);
    let confirm = "anything else to stop: ";

    let mut term = Terminal::start(ws.path(), &["accept", "clinic", &id], &[]);
    term.answer(confirm, 1, "yes");
    let (code, _, screen) = term.finish();
    assert_eq!(code, Some(1), "{screen}");
    assert!(screen.contains("not accepted: nothing written"), "{screen}");
    assert_eq!(
        fs::read_to_string(dir.join("items/booking.md")).unwrap(),
        before
    );

    let mut term = Terminal::start(ws.path(), &["accept", "clinic", &id], &[]);
    term.answer(confirm, 1, "accept");
    let (code, _, screen) = term.finish();
    assert_eq!(code, Some(0), "{screen}");
    assert_eq!(body(&dir.join("items/booking.md")), lossy);
    let version = fs::read_to_string(dir.join("history/booking/0002.md")).unwrap();
    assert!(version.contains("accepted_flags:"), "{version}");
}
