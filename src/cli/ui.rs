//! The one small output layer: data to stdout, messages to stderr, colour decided once.
//!
//! Commands never print directly. They hand text to a [`Ui`], which knows whether each
//! stream gets colour, whether `--quiet` silenced messages, and turns a closed pipe into a
//! quiet exit instead of a panic.

use std::io::{IsTerminal, Write};

use console::Style;

use crate::error::{Error, ErrorKind, Result};
use crate::text::sanitize::for_terminal;

/// The user's colour choice from `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

/// What a piece of text means; the UI turns it into a colour (or nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Error,
    Warning,
    Good,
    Info,
    Dim,
    Strong,
    Added,
    Removed,
}

impl Tone {
    fn style(self) -> Style {
        match self {
            Tone::Error => Style::new().red().bold(),
            Tone::Warning => Style::new().yellow(),
            Tone::Good => Style::new().green(),
            Tone::Info => Style::new().cyan(),
            Tone::Dim => Style::new().dim(),
            Tone::Strong => Style::new().bold(),
            Tone::Added => Style::new().green().underlined(),
            Tone::Removed => Style::new().red().strikethrough(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Ui {
    color_stdout: bool,
    color_stderr: bool,
    quiet: bool,
}

/// Decides colour for one stream, in this order: the flag, a non-empty `NO_COLOR`,
/// `CLICOLOR_FORCE` other than `0`, then whether the stream is a terminal.
fn decide_color(choice: ColorChoice, is_terminal: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
            if set("NO_COLOR").is_some() {
                false
            } else if set("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
                true
            } else {
                is_terminal && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
            }
        }
    }
}

impl Ui {
    pub fn new(choice: ColorChoice, quiet: bool) -> Self {
        let color_stdout = decide_color(choice, std::io::stdout().is_terminal());
        let color_stderr = decide_color(choice, std::io::stderr().is_terminal());
        console::set_colors_enabled(color_stdout);
        console::set_colors_enabled_stderr(color_stderr);
        Ui {
            color_stdout,
            color_stderr,
            quiet,
        }
    }

    /// A UI with no colour and no terminal, for tests of the layers below.
    pub fn plain() -> Self {
        Ui {
            color_stdout: false,
            color_stderr: false,
            quiet: false,
        }
    }

    pub fn quiet(&self) -> bool {
        self.quiet
    }

    pub fn stdout_is_terminal(&self) -> bool {
        std::io::stdout().is_terminal()
    }

    pub fn stderr_is_terminal(&self) -> bool {
        std::io::stderr().is_terminal()
    }

    /// Whether an interactive question can be asked: both stdin and stderr are terminals.
    pub fn interactive(&self) -> bool {
        std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
    }

    /// Paints text for stdout.
    pub fn paint(&self, text: &str, tone: Tone) -> String {
        if self.color_stdout {
            tone.style().force_styling(true).apply_to(text).to_string()
        } else {
            text.to_string()
        }
    }

    /// `label text` and a newline, the label painted good or as a warning.
    pub fn verdict_line(&self, label: &str, good: bool, text: &str) -> String {
        let tone = if good { Tone::Good } else { Tone::Warning };
        format!("{} {text}\n", self.paint(label, tone))
    }

    /// Paints text for stderr.
    pub fn paint_err(&self, text: &str, tone: Tone) -> String {
        if self.color_stderr {
            tone.style().force_styling(true).apply_to(text).to_string()
        } else {
            text.to_string()
        }
    }

    /// Writes data to stdout exactly as given.
    pub fn out(&self, text: &str) -> Result<()> {
        let mut stdout = std::io::stdout().lock();
        stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
            .map_err(Error::from)
    }

    /// Writes one line of data to stdout.
    pub fn outln(&self, text: &str) -> Result<()> {
        let mut line = String::with_capacity(text.len() + 1);
        line.push_str(text);
        line.push('\n');
        self.out(&line)
    }

    /// Writes a JSON document to stdout, pretty-printed, with a final newline. A value
    /// that cannot be serialised is a bug in briefkit (an internal error, exit 70).
    pub fn json<T: serde::Serialize + ?Sized>(&self, value: &T) -> Result<()> {
        self.out(&crate::document::text(value)?)
    }

    /// A progress or status message on stderr; silenced by `--quiet`.
    pub fn info(&self, text: &str) {
        if !self.quiet {
            self.err_line(text);
        }
    }

    /// A warning on stderr; silenced by `--quiet`, which leaves only data and errors.
    /// Warnings quote files, servers and models, so the text goes through the one
    /// sanitiser.
    pub fn warn(&self, text: &str) {
        if self.quiet {
            return;
        }
        let label = self.paint_err("warning:", Tone::Warning);
        self.err_line(&format!("{label} {}", for_terminal(text)));
    }

    /// A confirmation on stdout that is not the command's data (`new session …`,
    /// `collected …`): the exit code says as much, so `--quiet` leaves it out.
    pub fn confirm(&self, text: &str) -> Result<()> {
        if self.quiet {
            return Ok(());
        }
        self.outln(text)
    }

    /// A line on stderr, unconditionally (used for reports that belong on stderr).
    pub fn err_line(&self, text: &str) {
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "{text}");
    }

    /// Prints an error with its details and hint.
    pub fn error(&self, err: &Error) {
        if err.kind == ErrorKind::BrokenPipe {
            return;
        }
        // An error can quote a file, a server or a model: shown through the one sanitiser.
        let label = self.paint_err("error:", Tone::Error);
        self.err_line(&format!("{label} {}", for_terminal(&err.message)));
        for location in &err.locations {
            self.err_line(&format!("  {}", for_terminal(&location.to_string())));
        }
        for detail in &err.details {
            self.err_line(&format!("  {}", for_terminal(detail)));
        }
        for cause in err.causes() {
            self.err_line(&format!("  caused by: {}", for_terminal(&cause)));
        }
        if let Some(hint) = crate::cli::hints::for_cli(err) {
            let label = self.paint_err("hint:", Tone::Info);
            self.err_line(&format!("{label} {}", for_terminal(&hint)));
        }
    }
}

/// A path or word as a user can paste it into a POSIX shell: bare when safe, else quoted.
pub fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@=,".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}
