//! A real browser for the page tests: Debian's headless Chromium, driven over the
//! DevTools protocol on a pipe (`--remote-debugging-pipe`: JSON messages ended by a NUL
//! byte, commands on fd 3 and events on fd 4), with nothing but `serde_json` and `libc`.
//!
//! It is kept off the network: every host name but localhost resolves to nothing, and
//! background services (updates, sync, metrics) are off; each run has its own profile
//! directory. Chromium missing is a failure, never a skip: CI installs it (`.ci/run`).
//!
//! A test process starts one Chromium ([`shared`]) and the page tests take turns with it:
//! a start costs a second or two of a CI machine's two cores, a navigation a few
//! milliseconds. It is closed, and its profile removed, when the process exits.

use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

/// How long any one step may take before the test fails (a loaded CI machine is slow).
const STEP: Duration = Duration::from_secs(30);

/// The Chromium binary: `BRIEF_CHROMIUM`, else Debian's, else one on `PATH`.
fn chromium() -> PathBuf {
    if let Some(path) = std::env::var_os("BRIEF_CHROMIUM") {
        let path = PathBuf::from(path);
        assert!(
            path.exists(),
            "BRIEF_CHROMIUM names {}, which does not exist; unset it to use Debian's \
             Chromium (`sudo apt-get install -y chromium`)",
            path.display()
        );
        return path;
    }
    // Debian's /usr/bin/chromium is a shell wrapper that adds extension flags; the binary
    // behind it is what a test wants.
    let candidates = [
        "/usr/lib/chromium/chromium",
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ];
    for candidate in candidates {
        if Path::new(candidate).exists() {
            return PathBuf::from(candidate);
        }
    }
    panic!(
        "Chromium is not installed, and the dashboard tests drive a real browser. Install it \
         with `sudo apt-get install -y chromium` (Debian/Ubuntu; .ci/run installs it), or \
         point BRIEF_CHROMIUM at a Chromium or Chrome binary."
    );
}

/// Where screenshots are kept: under `target/`, printed so a person can look.
pub fn artifact(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn pipe() -> (OwnedFd, OwnedFd) {
    rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).unwrap()
}

/// The process's one browser, while a test holds it.
pub struct Shared(MutexGuard<'static, Option<Browser>>);

impl std::ops::Deref for Shared {
    type Target = Browser;
    fn deref(&self) -> &Browser {
        self.0.as_ref().unwrap()
    }
}

impl std::ops::DerefMut for Shared {
    fn deref_mut(&mut self) -> &mut Browser {
        self.0.as_mut().unwrap()
    }
}

static SHARED: Mutex<Option<Browser>> = Mutex::new(None);

extern "C" fn close_shared() {
    // The tests are over: close Chromium and remove its profile (a static is never dropped).
    let browser = SHARED.lock().unwrap_or_else(PoisonError::into_inner).take();
    drop(browser);
}

/// The test process's one Chromium, started on first use, for one test at a time; the page
/// is as a fresh one's would be (scripts on, the default viewport, no events recorded).
/// A test that failed while holding it leaves it to the next, restarted if it died.
pub fn shared() -> Shared {
    let mut guard = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
    let alive = guard
        .as_mut()
        .is_some_and(|b| matches!(b.child.try_wait(), Ok(None)));
    if !alive {
        let first = guard.is_none();
        *guard = None;
        *guard = Some(Browser::launch());
        if first {
            briefkit::sys::at_exit(close_shared);
        }
    } else {
        let browser = guard.as_mut().unwrap();
        browser.call(
            "Emulation.setScriptExecutionDisabled",
            json!({"value": false}),
        );
        browser.open("about:blank");
    }
    Shared(guard)
}

/// A headless Chromium with one page open.
pub struct Browser {
    child: Child,
    commands: std::fs::File,
    messages: Receiver<Value>,
    next_id: u64,
    session: String,
    /// Every event seen so far, in order.
    pub events: Vec<Value>,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Starts Chromium and opens a blank page, with console, log, network and dialog
    /// events recorded.
    pub fn launch() -> Browser {
        let binary = chromium();
        let profile = tempfile::tempdir().unwrap();
        let (to_browser_read, to_browser_write) = pipe();
        let (from_browser_read, from_browser_write) = pipe();
        let (a, b) = (to_browser_read.as_raw_fd(), from_browser_write.as_raw_fd());
        let mut command = Command::new(&binary);
        command
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-quic",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-default-apps",
                "--disable-extensions",
                "--mute-audio",
                "--hide-scrollbars",
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
                "--remote-debugging-pipe",
                "about:blank",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        briefkit::sys::child_descriptors_3_and_4(&mut command, a, b);
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        drop(to_browser_read);
        drop(from_browser_write);
        let (sender, messages) = channel();
        let reader = std::fs::File::from(from_browser_read);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(reader);
            loop {
                let mut buf = Vec::new();
                match reader.read_until(0, &mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                if buf.pop() != Some(0) {
                    return;
                }
                let Ok(message) = serde_json::from_slice::<Value>(&buf) else {
                    continue;
                };
                if sender.send(message).is_err() {
                    return;
                }
            }
        });
        let mut browser = Browser {
            child,
            commands: std::fs::File::from(to_browser_write),
            messages,
            next_id: 0,
            session: String::new(),
            events: Vec::new(),
            _profile: profile,
        };
        let target = browser.browser_call("Target.createTarget", json!({"url": "about:blank"}));
        let target = target["targetId"].as_str().unwrap().to_string();
        let attached = browser.browser_call(
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
        );
        browser.session = attached["sessionId"].as_str().unwrap().to_string();
        for domain in [
            "Page.enable",
            "Runtime.enable",
            "Log.enable",
            "Network.enable",
        ] {
            browser.call(domain, json!({}));
        }
        browser.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 1100, "height": 900, "deviceScaleFactor": 1, "mobile": false}),
        );
        browser
    }

    fn send(&mut self, method: &str, params: Value, session: bool) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if session {
            message["sessionId"] = json!(self.session);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        self.commands.write_all(&bytes).unwrap();
        let started = Instant::now();
        loop {
            let left = STEP.saturating_sub(started.elapsed());
            let message = self
                .messages
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("Chromium did not answer {method} in {STEP:?}"));
            if message["id"].as_u64() == Some(id) {
                assert!(message["error"].is_null(), "{method}: {}", message["error"]);
                return message["result"].clone();
            }
            self.events.push(message);
        }
    }

    fn browser_call(&mut self, method: &str, params: Value) -> Value {
        self.send(method, params, false)
    }

    /// A command to the page.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.send(method, params, true)
    }

    /// Opens `url` and waits for its load event.
    pub fn open(&mut self, url: &str) {
        self.events.clear();
        self.call("Page.navigate", json!({"url": url}));
        self.wait_event("Page.loadEventFired");
    }

    fn wait_event(&mut self, method: &str) -> Value {
        if let Some(at) = self.events.iter().position(|e| e["method"] == method) {
            return self.events[at].clone();
        }
        let started = Instant::now();
        loop {
            let left = STEP.saturating_sub(started.elapsed());
            let message = self
                .messages
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no {method} from Chromium in {STEP:?}"));
            self.events.push(message.clone());
            if message["method"] == method {
                return message;
            }
        }
    }

    /// The value of a JavaScript expression in the page (promises awaited).
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(
            result["exceptionDetails"].is_null(),
            "{expression}: {}",
            result["exceptionDetails"]
        );
        result["result"]["value"].clone()
    }

    /// Waits until `expression` is truthy in the page; its value.
    pub fn wait_for(&mut self, expression: &str) -> Value {
        let started = Instant::now();
        loop {
            let value = self.eval(expression);
            let truthy = !matches!(value, Value::Null | Value::Bool(false))
                && value != json!(0)
                && value != json!("");
            if truthy {
                return value;
            }
            assert!(
                started.elapsed() < STEP,
                "waited {STEP:?} for `{expression}` in the page"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Whatever went wrong in the page: console errors and warnings, uncaught exceptions,
    /// log entries (failed loads, policy violations) and dialogs (an `alert()` that ran).
    pub fn problems(&mut self) -> Vec<String> {
        // Let queued events arrive.
        self.eval("1");
        while let Ok(message) = self.messages.try_recv() {
            self.events.push(message);
        }
        let mut out = Vec::new();
        for event in &self.events {
            let params = &event["params"];
            match event["method"].as_str() {
                Some("Runtime.consoleAPICalled")
                    if !matches!(params["type"].as_str(), Some("log" | "info" | "debug")) =>
                {
                    out.push(format!("console.{}: {}", params["type"], params["args"]));
                }
                Some("Runtime.exceptionThrown") => {
                    out.push(format!("exception: {}", params["exceptionDetails"]));
                }
                Some("Log.entryAdded")
                    if !matches!(params["entry"]["level"].as_str(), Some("verbose" | "info")) =>
                {
                    out.push(format!("log: {}", params["entry"]));
                }
                Some("Page.javascriptDialogOpening") => {
                    out.push(format!("dialog: {params}"));
                }
                _ => {}
            }
        }
        out
    }

    /// Every URL the page asked for since it was opened.
    pub fn requests(&mut self) -> Vec<String> {
        self.eval("1");
        while let Ok(message) = self.messages.try_recv() {
            self.events.push(message);
        }
        self.events
            .iter()
            .filter(|e| e["method"] == "Network.requestWillBeSent")
            .filter_map(|e| e["params"]["request"]["url"].as_str().map(String::from))
            .collect()
    }

    /// A PNG of the whole page (up to 2,400 px tall), kept at `path`.
    pub fn screenshot(&mut self, path: &Path) {
        let height = self
            .eval("Math.min(2400, document.documentElement.scrollHeight)")
            .as_u64()
            .unwrap_or(900);
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 1100, "height": height, "deviceScaleFactor": 1, "mobile": false}),
        );
        let shot = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let png = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap())
            .unwrap();
        std::fs::write(path, &png).unwrap();
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 1100, "height": 900, "deviceScaleFactor": 1, "mobile": false}),
        );
        // Straight to stderr, past the test harness's capture, so every run says where.
        let _ = writeln!(
            std::io::stderr(),
            "screenshot: {} ({} bytes)",
            path.display(),
            png.len()
        );
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.next_id += 1;
        let close = json!({"id": self.next_id, "method": "Browser.close", "params": {}});
        let mut bytes = serde_json::to_vec(&close).unwrap();
        bytes.push(0);
        let _ = self.commands.write_all(&bytes);
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(5) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
