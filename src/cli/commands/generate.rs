//! `brief generate`: shell completions and the man page, for packagers.

use clap::ValueEnum;

use crate::cli::output::Outcome;
use crate::cli::ui::Ui;
use crate::error::{Error, Result};

/// Print shell completions or the man page (for packagers)
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(Debug, clap::Subcommand)]
enum What {
    /// Completions for a shell
    Completions {
        #[arg(value_enum)]
        shell: Shell,
    },
    /// The man page, in roff
    Man,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Shell {
    Bash,
    Zsh,
    Fish,
    Elvish,
    Powershell,
}

/// `root` is the whole command line's definition, handed in by the caller so that this
/// file does not import the module that lists it.
pub fn run(args: Args, root: clap::Command, ui: &Ui) -> Result<Outcome> {
    let mut command = root;
    let mut buffer = Vec::new();
    match args.what {
        What::Completions { shell } => {
            use clap_complete::Shell as S;
            let shell = match shell {
                Shell::Bash => S::Bash,
                Shell::Zsh => S::Zsh,
                Shell::Fish => S::Fish,
                Shell::Elvish => S::Elvish,
                Shell::Powershell => S::PowerShell,
            };
            clap_complete::generate(shell, &mut command, "brief", &mut buffer);
        }
        What::Man => clap_mangen::Man::new(command)
            .render(&mut buffer)
            .map_err(|e| Error::internal(format!("cannot render the man page: {e}")))?,
    }
    ui.out(&String::from_utf8_lossy(&buffer))?;
    Ok(Outcome::Ok)
}
