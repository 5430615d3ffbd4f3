//! `brief generate`: shell completions, man pages and the Markdown command reference, for
//! packagers and for `docs/reference.md`.

use clap::ValueEnum;

use crate::cli::output::Outcome;
use crate::cli::ui::Ui;
use crate::error::{Error, Result};

/// Print shell completions, the man pages (one per command and nested subcommand) or the Markdown command reference
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(Debug, clap::Subcommand)]
enum What {
    /// Completions for a shell
    Completions {
        /// The shell to print completions for
        #[arg(value_enum)]
        shell: Shell,
    },
    /// The man pages, in roff: `brief.1` on stdout, or one page per subcommand in --dir
    Man {
        /// Write `brief.1` and `brief-<subcommand>.1` for every subcommand (nested ones too:
        /// `brief-session-new.1`) into this directory
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
    },
    /// The command reference in Markdown (`docs/reference.md` is this output)
    Reference,
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
        What::Man { dir: Some(dir) } => return write_man_pages(command, &dir, ui),
        What::Reference => buffer = crate::cli::reference::markdown(command).into_bytes(),
        What::Man { dir: None } => {
            clap_mangen::Man::new(command)
                .render(&mut buffer)
                .map_err(|e| {
                    Error::internal(format!("cannot render the man page: {e}")).with_source(e)
                })?
        }
    }
    ui.out(&String::from_utf8_lossy(&buffer))?;
    Ok(Outcome::Ok)
}

/// One page for `brief` and one per subcommand, nested ones included (`brief-compose.1`,
/// `brief-session-new.1`, …), as packagers install them; `man brief-session-new` then finds
/// the page that `brief-session.1` links to.
fn write_man_pages(command: clap::Command, dir: &std::path::Path, ui: &Ui) -> Result<Outcome> {
    if dir.exists() && !dir.is_dir() {
        return Err(Error::input(format!(
            "{}: already exists and is a file, not a directory",
            dir.display()
        ))
        .with_hint("name a directory for the man pages with --dir (it is created if missing)"));
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, &e))?;
    let mut command = command;
    command.build();
    let mut pages = vec![("brief.1".to_string(), command.clone())];
    collect_pages(&command, "brief", &mut pages);
    for (file, page) in &pages {
        let mut buffer = Vec::new();
        clap_mangen::Man::new(page.clone())
            .render(&mut buffer)
            .map_err(|e| Error::input(format!("cannot render {file}: {e}")).with_source(e))?;
        crate::store::write_atomic(&dir.join(file), &buffer)?;
    }
    ui.info(&format!(
        "wrote {} man pages to {}",
        pages.len(),
        dir.display()
    ));
    Ok(Outcome::Ok)
}

/// A page named `<prefix>-<sub>` for every visible subcommand of `parent`, depth first.
fn collect_pages(parent: &clap::Command, prefix: &str, pages: &mut Vec<(String, clap::Command)>) {
    for sub in parent
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        let name = format!("{prefix}-{}", sub.get_name());
        let page = sub.clone().name(name.clone()).display_name(name.clone());
        pages.push((format!("{name}.1"), page));
        collect_pages(sub, &name, pages);
    }
}
