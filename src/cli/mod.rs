//! The command line: global flags, the subcommand list, and the one place where a
//! command's result becomes an exit code.

pub mod commands;
pub mod interactive;
pub mod review;
pub mod ui;
pub mod worddiff;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use crate::cli::commands::Command;
use crate::cli::ui::{ColorChoice, Ui};
use crate::error::{Error, ErrorKind};

/// Keep an agent brief cheap to re-send and small, without silently changing what the agent does.
#[derive(Debug, Parser)]
#[command(name = "brief", version, about, max_term_width = 100)]
#[command(
    propagate_version = true,
    arg_required_else_help = true,
    args_override_self = true
)]
pub struct Cli {
    /// When to use colour: auto (a terminal, unless NO_COLOR is set), always or never
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,

    /// Print only data and errors: no progress or status messages
    #[arg(short, long, global = true)]
    pub quiet: bool,

    #[command(subcommand)]
    pub command: Command,
}

/// What a command that ran to the end reports: all good, or a check that did not pass
/// (exit 1, with the report already printed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    Failed,
}

pub fn command() -> clap::Command {
    Cli::command()
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // clap prints help and version itself; usage errors exit 2 as documented.
            let _ = err.print();
            return match err.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    ExitCode::SUCCESS
                }
                _ => ExitCode::from(ErrorKind::Input.exit_code()),
            };
        }
    };
    let ui = Ui::new(cli.color, cli.quiet);
    match commands::run(cli.command, &ui) {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Failed) => ExitCode::from(ErrorKind::Failed.exit_code()),
        Err(err) => {
            ui.error(&err);
            ExitCode::from(err.exit_code())
        }
    }
}

/// Parses `KEY=VALUE` for `--var`.
pub fn parse_var(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_string(), value.to_string())),
        _ => Err(format!("expected KEY=VALUE, got `{s}`")),
    }
}

impl From<clap::Error> for Error {
    fn from(err: clap::Error) -> Self {
        Error::input(err.to_string())
    }
}
