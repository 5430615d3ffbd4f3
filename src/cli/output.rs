//! The output contract, in one place: how a command's typed report becomes JSON, how an
//! error becomes JSON, and how a located problem becomes a GitHub annotation.
//!
//! Every `--json` document is one object whose first two keys are `status` (a word from
//! the README's status table) and `summary` (one sentence for a person or an agent); the
//! command's own fields follow. Under `--json` an error is such an object too
//! (`"status": "error"`, with an `error` object), printed on stdout while the usual text
//! goes to stderr, so a script always gets one parseable document.

use std::path::Path;

use clap::ArgMatches;
use serde::Serialize;

use crate::cli::ui::Ui;
use crate::error::{CallStatus, Error, Location, Result};

/// What a command that ran to the end reports: all good, or a check that did not pass
/// (exit 1, with the report already printed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    Failed,
}

/// The form a command prints its report in: for people (the default), one JSON document
/// (`--json` or `--format json`), or GitHub workflow annotations (`--format github`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Human,
    Json,
    Github,
}

impl Form {
    /// The form of a command whose only choice is `--json`.
    pub fn json_if(json: bool) -> Self {
        if json { Form::Json } else { Form::Human }
    }
}

/// A command's typed report: its own fields (`Serialize`, printed after `status` and
/// `summary` under `--json`), its status word and summary, and its human form. The one
/// renderer, [`print`], picks the form; a command file builds the report and hands it over.
///
/// Domain modules return the data; the impls of this trait live in `cli/`, so colour and
/// the terminal stay here.
/// `impl Report` for documents whose status and summary are the [`Document`]'s own and
/// whose human form is the summary on stderr.
///
/// [`Document`]: crate::document::Document
macro_rules! summary_report {
    ($($report:ty),+ $(,)?) => {$(
        impl $crate::cli::output::Report for $report {
            fn status(&self) -> &str {
                $crate::document::Document::status(self)
            }

            fn summary(&self) -> String {
                $crate::document::Document::summary(self)
            }

            fn human(&self, ui: &$crate::cli::ui::Ui) -> $crate::error::Result<()> {
                ui.info(&$crate::document::Document::summary(self));
                Ok(())
            }
        }
    )+};
}
pub(crate) use summary_report;

pub trait Report: Serialize {
    /// The first key of the JSON document: a word from the README's status table.
    fn status(&self) -> &str;
    /// The second: one sentence for a person or an agent.
    fn summary(&self) -> String;
    /// The human form: data to stdout, messages to stderr (through `ui`).
    fn human(&self, ui: &Ui) -> Result<()>;
    /// The JSON form: the document led by `status` and `summary`. A report whose contract
    /// is another object (the gate's answer on one line) prints that instead.
    fn json(&self, ui: &Ui) -> Result<()> {
        json(ui, self.status(), &self.summary(), self)
    }
    /// Messages printed in every form, before the report (warnings on stderr).
    fn notes(&self, _ui: &Ui) {}
    /// Messages printed after the human and GitHub forms (measurements on stderr). Not
    /// under `--json`: the document carries the figures, and stderr keeps only warnings
    /// and errors there.
    fn after(&self, _ui: &Ui) {}
    /// GitHub workflow commands; a command without its own prints the human form.
    fn github(&self, ui: &Ui) -> Result<()> {
        self.human(ui)
    }
    /// Whether the command passed: a check that failed exits 1 after printing.
    fn outcome(&self) -> Outcome {
        Outcome::Ok
    }
}

/// Prints `report` in `form` and returns its outcome: the one place a report is rendered.
pub fn print<R: Report + ?Sized>(ui: &Ui, form: Form, report: &R) -> Result<Outcome> {
    report.notes(ui);
    match form {
        Form::Human => report.human(ui)?,
        Form::Json => report.json(ui)?,
        Form::Github => report.github(ui)?,
    }
    if form != Form::Json {
        report.after(ui);
    }
    Ok(report.outcome())
}

/// Prints `report` in `form`, then fails with `err`: a command that reports what it did and
/// still exits with an error (a brief that would not load, rows left unsent). In JSON and
/// GitHub forms the report already carries the error, so it is not printed again; in the
/// human form the error is the message on stderr.
pub fn print_then_fail<R: Report + ?Sized>(
    ui: &Ui,
    form: Form,
    report: &R,
    err: Error,
) -> Result<Outcome> {
    print(ui, form, report)?;
    Err(if form == Form::Human {
        err
    } else {
        err.reported()
    })
}

pub use crate::document::Envelope;

/// Prints `body` (a struct with named fields) as the command's JSON document, led by
/// `status` and `summary`.
pub fn json<T: Serialize + ?Sized>(ui: &Ui, status: &str, summary: &str, body: &T) -> Result<()> {
    ui.json(&Envelope {
        status,
        summary,
        body,
    })
}

/// The JSON form of an error, `{"status": "error", "summary", "error": {…}}`.
#[derive(Debug, Serialize)]
pub struct ErrorReport<'a> {
    pub status: &'static str,
    pub summary: &'a str,
    pub error: ErrorBody<'a>,
}

#[derive(Debug, Serialize)]
pub struct ErrorBody<'a> {
    /// `input`, `provider`, `conflict`, `failed` or `internal`.
    pub kind: &'static str,
    pub message: &'a str,
    pub hint: Option<String>,
    /// Every located problem behind the error: `file`, `line`, `column` (0 when
    /// unknown), `message`.
    pub locations: &'a [Location],
    /// Lines without a position.
    pub details: &'a [String],
    /// The messages of the causes the error wraps, outermost first.
    pub causes: Vec<String>,
    pub exit_code: u8,
    /// For a failed model call: the ledger's status for it (`http_429`, `timeout`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_failure: Option<&'a CallStatus>,
}

impl<'a> ErrorReport<'a> {
    pub fn new(err: &'a Error) -> Self {
        ErrorReport {
            status: "error",
            summary: &err.message,
            error: ErrorBody {
                kind: err.kind.as_str(),
                message: &err.message,
                hint: crate::cli::hints::for_cli(err),
                locations: &err.locations,
                details: &err.details,
                causes: err.causes(),
                exit_code: err.exit_code(),
                provider_failure: err.call_status(),
            },
        }
    }
}

/// Whether the parsed command line asked for JSON: a `--json` flag, or `--format json`,
/// on the subcommand that runs (nested subcommands included). Every command names its
/// flag `json`, so this needs no list of commands.
pub fn wants_json(matches: &ArgMatches) -> bool {
    let mut current = matches;
    loop {
        if matches!(current.try_get_one::<bool>("json"), Ok(Some(true))) {
            return true;
        }
        if let Ok(Some(mut values)) = current.try_get_raw("format")
            && values.any(|v| v == "json")
        {
            return true;
        }
        match current.subcommand() {
            Some((_, sub)) => current = sub,
            None => return false,
        }
    }
}

/// The same question for a command line clap could not parse: `--json` or `--format json`
/// (or `--format=json`) anywhere before a `--`.
pub fn raw_wants_json<I: IntoIterator<Item = String>>(args: I) -> bool {
    let mut previous = String::new();
    for arg in args {
        if arg == "--" {
            break;
        }
        if arg == "--json" || arg == "--format=json" || (previous == "--format" && arg == "json") {
            return true;
        }
        previous = arg;
    }
    false
}

/// The level of a GitHub workflow annotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnnotationLevel {
    Error,
    Warning,
    Notice,
}

/// One GitHub workflow command (`::error file=…,line=…,col=…,title=…::message`). `file`,
/// `line` and `col` are given whenever known, so the annotation lands on the line.
pub fn annotation(
    level: AnnotationLevel,
    file: Option<&Path>,
    line: usize,
    column: usize,
    title: &str,
    message: &str,
) -> String {
    let command = match level {
        AnnotationLevel::Error => "error",
        AnnotationLevel::Warning => "warning",
        AnnotationLevel::Notice => "notice",
    };
    let mut props = Vec::new();
    if let Some(file) = file {
        props.push(format!(
            "file={}",
            escape_property(&file.display().to_string())
        ));
        if line > 0 {
            props.push(format!("line={line}"));
        }
        if line > 0 && column > 0 {
            props.push(format!("col={column}"));
        }
    }
    props.push(format!("title={}", escape_property(title)));
    format!("::{command} {}::{}", props.join(","), escape_data(message))
}

/// The annotations of an error: one per located problem, else one for the message.
pub fn error_annotations(err: &Error, title: &str) -> Vec<String> {
    if err.locations.is_empty() {
        let mut message = err.message.clone();
        for detail in &err.details {
            message.push('\n');
            message.push_str(detail);
        }
        return vec![annotation(
            AnnotationLevel::Error,
            None,
            0,
            0,
            title,
            &message,
        )];
    }
    err.locations
        .iter()
        .map(|l| {
            annotation(
                AnnotationLevel::Error,
                Some(&l.file),
                l.line,
                l.column,
                title,
                &l.message,
            )
        })
        .collect()
}

/// GitHub workflow commands need `%`, CR and LF escaped in messages, and also `:` and `,`
/// in properties.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Body {
        count: u32,
        status_of_part: &'static str,
    }

    #[test]
    fn status_and_summary_lead_every_document() {
        let value = serde_json::to_value(Envelope {
            status: "ok",
            summary: "done",
            body: &Body {
                count: 2,
                status_of_part: "x",
            },
        })
        .unwrap();
        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["status", "summary", "count", "status_of_part"]);
    }

    #[test]
    fn an_error_is_one_object_with_its_locations() {
        let err = Error::input("b has 1 problem")
            .with_locations([Location::new(Path::new("b/brief.yaml"), 3, 5, "bad")])
            .with_hint("fix it");
        let value = serde_json::to_value(ErrorReport::new(&err)).unwrap();
        assert_eq!(value["status"], "error");
        assert_eq!(value["error"]["kind"], "input");
        assert_eq!(value["error"]["exit_code"], 2);
        assert_eq!(value["error"]["locations"][0]["line"], 3);
        assert_eq!(value["error"]["hint"], "fix it");
    }

    #[test]
    fn an_errors_causes_and_an_interruption_reach_the_json() {
        let err = Error::io(
            Path::new("items"),
            &std::io::Error::from_raw_os_error(libc::EISDIR),
        );
        let value = serde_json::to_value(ErrorReport::new(&err)).unwrap();
        let causes = value["error"]["causes"].as_array().unwrap();
        assert_eq!(causes.len(), 1, "{causes:?}");
        assert_eq!(causes[0], "Is a directory (os error 21)");
        let stopped = Error::interrupted("cancelled by Ctrl-C");
        let value = serde_json::to_value(ErrorReport::new(&stopped)).unwrap();
        assert_eq!(value["error"]["kind"], "interrupted");
        assert_eq!(value["error"]["exit_code"], 130);
    }

    #[test]
    fn annotations_carry_file_line_and_col_escaped() {
        let line = annotation(
            AnnotationLevel::Warning,
            Some(Path::new("a,b:c.md")),
            4,
            2,
            "brief check: x",
            "50% off\nnow",
        );
        assert_eq!(
            line,
            "::warning file=a%2Cb%3Ac.md,line=4,col=2,title=brief check%3A x::50%25 off%0Anow"
        );
        let whole_file = annotation(AnnotationLevel::Error, Some(Path::new("a")), 0, 3, "t", "m");
        assert_eq!(whole_file, "::error file=a,title=t::m");
    }

    #[test]
    fn raw_arguments_ask_for_json_before_a_double_dash() {
        let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(raw_wants_json(args(&["brief", "check", "--json"])));
        assert!(raw_wants_json(args(&[
            "brief", "check", "--format", "json"
        ])));
        assert!(!raw_wants_json(args(&["brief", "x", "--", "--json"])));
    }
}
