//! `brief lock`: record what CI will hold the brief to.

use std::path::PathBuf;

use crate::brief::Lock;
use crate::cli::output::Outcome;
use crate::cli::ui::{Tone, Ui};
use crate::error::Result;
use crate::files::inside;
use crate::prompt::compose::{ComposeOptions, prefix};
use crate::prompt::measure::prefix_tokens;

/// Write brief.lock: the exact bytes of every rule item and the stable prefix's hashes
///
/// `brief check` then fails when a rule changes and reports when the prefix (and with it
/// the provider's prompt cache) changes. Needs no --var: volatile items are not locked.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The brief directory (or its brief.yaml)
    pub brief: PathBuf,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief(&args.brief, ui)?;
    let _writer = crate::store::WriterLock::acquire(&brief.dir)?;
    let prefix = prefix(&brief, ComposeOptions::default());
    let tokens = prefix_tokens(&brief, &prefix);
    let lock = Lock::new(&brief, &prefix.hashes, tokens);
    let path = brief.lock_path();
    inside::check_target(&brief.dir, &path)?;
    let previous = Lock::read(&path).ok().flatten();
    inside::write_file(&brief.dir, &path, lock.to_yaml()?.as_bytes())?;
    let rules = lock.rules.len();
    let changed = previous.is_some_and(|p| p != lock);
    let verb = if changed { "updated" } else { "wrote" };
    ui.info(&format!(
        "{} {}: {rules} rule item{} locked, prefix {} ({tokens} tokens)",
        ui.paint_err(verb, Tone::Good),
        path.display(),
        if rules == 1 { "" } else { "s" },
        &lock.prefix.hash[..12],
    ));
    Ok(Outcome::Ok)
}
