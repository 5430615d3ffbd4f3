//! The command line's shape: global flags and the subcommand list.

use clap::{CommandFactory, Parser};

use crate::cli::commands::Command;
use crate::cli::ui::ColorChoice;

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

    /// Print only data and errors: no progress, status, warning or confirmation messages
    #[arg(short, long, global = true)]
    pub quiet: bool,

    #[command(subcommand)]
    pub command: Command,
}

pub fn command() -> clap::Command {
    Cli::command()
}
