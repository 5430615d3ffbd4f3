//! One file per subcommand: its clap arguments and a `run` that talks to the domain
//! modules and the UI.

use clap::Subcommand;

use crate::cli::Outcome;
use crate::error::Result;
use crate::ui::Ui;

pub mod generate;
pub mod guard;

#[derive(Debug, Subcommand)]
pub enum Command {
    #[command(hide = true)]
    Generate(generate::Args),
    Guard(guard::Args),
}

pub fn run(command: Command, ui: &Ui) -> Result<Outcome> {
    match command {
        Command::Generate(args) => generate::run(args, ui),
        Command::Guard(args) => guard::run(args, ui),
    }
}
