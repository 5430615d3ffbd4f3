//! One file per subcommand: its clap arguments and a `run` that talks to the domain
//! modules and the UI.

use clap::Subcommand;

use crate::cli::Outcome;
use crate::error::Result;
use crate::ui::Ui;

pub mod align;
pub mod generate;

#[derive(Debug, Subcommand)]
pub enum Command {
    Align(align::Args),
    #[command(hide = true)]
    Generate(generate::Args),
}

pub fn run(command: Command, ui: &Ui) -> Result<Outcome> {
    match command {
        Command::Align(args) => align::run(args, ui),
        Command::Generate(args) => generate::run(args, ui),
    }
}
