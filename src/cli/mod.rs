//! The command line: argument parsing, the terminal UI, the output contract (JSON, GitHub
//! annotations, tables) and one file per subcommand; and the one place where a command's
//! result becomes an exit code.
//!
//! Imports go one way: this file uses `args`, `commands` and `output`; the commands use
//! `output`, `shared_args`, `ui` and the domain modules, never this file.

pub mod args;
pub mod commands;
pub mod format_arg;
pub mod hints;
pub mod interactive;
pub mod interrupt;
pub mod output;
pub mod reference;
pub mod review;
pub mod shared_args;
pub mod table;
pub mod ui;
pub mod worddiff;

use std::process::ExitCode;

use clap::{FromArgMatches, error::ErrorKind as ClapErrorKind};

pub use args::command;

use crate::cli::args::Cli;
use crate::cli::output::ErrorReport;
use crate::cli::ui::Ui;
use crate::error::{Error, ErrorKind};

pub fn main() -> ExitCode {
    let parsed = command().try_get_matches().and_then(|matches| {
        Ok((
            Cli::from_arg_matches(&matches)?,
            output::wants_json(&matches),
        ))
    });
    let (cli, json) = match parsed {
        Ok(parsed) => parsed,
        Err(err) => {
            // clap prints help and version itself; usage errors exit 2 as documented.
            let _ = err.print();
            if matches!(
                err.kind(),
                ClapErrorKind::DisplayHelp | ClapErrorKind::DisplayVersion
            ) {
                return ExitCode::SUCCESS;
            }
            if output::raw_wants_json(std::env::args()) {
                let usage = Error::input(usage_message(&err))
                    .with_hint("see `brief help` or the command's --help");
                let _ = Ui::plain().json(&ErrorReport::new(&usage));
            }
            return ExitCode::from(ErrorKind::Input.exit_code());
        }
    };
    let ui = Ui::new(cli.color, cli.quiet);
    // The command's ledger sinks: opened by whatever records its rows, settled here.
    let sinks = crate::cache::ledger::Sinks::new();
    let result = commands::run(cli.command, &ui, command, &sinks);
    // Rows bound for a remote store (ClickHouse): each sink the command opened gets a
    // bounded wait for them to go, after the command's output.
    for left in sinks.settle() {
        ui.warn(&format!(
            "{} not in ClickHouse ({}) yet{}; kept in the spool {} and \
             sent by the next brief command or proxy writing there",
            crate::numbers::count(left.rows, "row is", "rows are"),
            left.target,
            left.last_error
                .map(|e| format!(": {e}"))
                .unwrap_or_default(),
            left.spool_dir
        ));
    }
    match result {
        Ok(output::Outcome::Ok) => ExitCode::SUCCESS,
        Ok(output::Outcome::Failed) => ExitCode::from(ErrorKind::Failed.exit_code()),
        Err(err) => {
            ui.error(&err);
            if json && !err.reported && err.kind != ErrorKind::BrokenPipe {
                let _ = ui.json(&ErrorReport::new(&err));
            }
            ExitCode::from(err.exit_code())
        }
    }
}

/// clap's message without its `error: ` label and usage block: its first paragraph on one
/// line, so that what it lists (the missing arguments, the valid values) stays in it.
fn usage_message(err: &clap::Error) -> String {
    let text = err.render().to_string();
    let paragraph: Vec<&str> = text
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .map(str::trim)
        .collect();
    let joined = paragraph.join(" ");
    joined
        .strip_prefix("error: ")
        .unwrap_or(&joined)
        .to_string()
}
