//! The review question `brief compress` asks on a terminal: accept, discard, edit or later.
//! Not a subcommand.

use std::path::Path;

use super::review::{print_commands, show_proposal, versions_written};
use crate::brief::{Brief, Item};
use crate::cli::commands::accept::confirm_flags;
use crate::cli::output::Outcome;
use crate::cli::ui::{Tone, Ui};
use crate::error::{Error, Result};
use crate::guard;
use crate::store::proposals::{self, Proposal};
use crate::store::transaction;
use crate::tokens;

/// Asks until the operator decides; an empty answer (or end of input) means later.
pub fn ask(
    ui: &Ui,
    brief_arg: &Path,
    brief: &Brief,
    item: &Item,
    mut proposal: Proposal,
) -> Result<Outcome> {
    let term = console::Term::stderr();
    loop {
        let question = format!(
            "{}ccept  {}iscard  {}dit  {}ater? ",
            ui.paint_err("[a]", Tone::Strong),
            ui.paint_err("[d]", Tone::Strong),
            ui.paint_err("[e]", Tone::Strong),
            ui.paint_err("[l]", Tone::Strong)
        );
        term.write_str(&question).map_err(Error::from)?;
        let answer = term.read_line().map_err(Error::from)?;
        match answer.trim().to_ascii_lowercase().as_str() {
            "a" | "accept" => {
                if !proposal.guard.is_clean() && !confirm_flags(ui, item, &proposal)? {
                    ui.info("not accepted");
                    continue;
                }
                let change = transaction::accept(&brief.dir, &proposal.id, true)?;
                ui.info(&format!(
                    "accepted: `{}` is now version {} (wrote {})",
                    item.id,
                    change.current.unwrap_or_default(),
                    versions_written(&change)
                ));
                return Ok(Outcome::Ok);
            }
            "d" | "discard" => {
                transaction::discard(&brief.dir, &proposal.id)?;
                ui.info("discarded: nothing else was written");
                return Ok(Outcome::Ok);
            }
            "e" | "edit" => {
                let Some(body) = edit(ui, item, &proposal)? else {
                    continue;
                };
                // A conversation sample's edit must keep its messages and roles.
                let report = match guard::check_item(item, &body) {
                    Ok(report) => report,
                    Err(err) => {
                        ui.warn(&format!("{}: the proposal is unchanged", err.message));
                        continue;
                    }
                };
                proposal.tokens_after = tokens::count(brief.manifest.tokenizer, &body);
                proposal.guard = report;
                proposal.body = body;
                proposals::replace(&brief.dir, &proposal)?;
                let (_, summary) = crate::compress::status(item, &proposal);
                show_proposal(ui, item, &proposal, &summary)?;
            }
            "" | "l" | "later" => {
                print_commands(ui, brief_arg, &proposal.id, !proposal.guard.is_clean())?;
                return Ok(Outcome::Ok);
            }
            other => ui.err_line(&format!("`{other}`: answer a, d, e or l")),
        }
    }
}

/// Opens the proposal's body in `$VISUAL` or `$EDITOR` (else `vi`); the edited text, or
/// `None` when the editor failed or nothing changed.
fn edit(ui: &Ui, item: &Item, proposal: &Proposal) -> Result<Option<String>> {
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_string());
    // An unpredictable name, created new and never through a link: the temporary
    // directory is shared, and a link planted under a guessable name would have sent this
    // write to another file.
    let path = std::env::temp_dir().join(format!(
        "brief-{}{}.md",
        proposal.id,
        crate::files::policy::temporary_name("edit")
    ));
    {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .mode(0o600)
            .open(&path)
            .and_then(|mut file| file.write_all(proposal.body.as_bytes()))
            .map_err(|e| Error::io(&path, &e))?;
    }
    let mut words = editor.split_whitespace();
    let program = words.next().unwrap_or("vi");
    let status = std::process::Command::new(program)
        .args(words)
        .arg(&path)
        .status();
    let text = crate::files::input::read_text(&path, crate::files::limits::EDITED_PROPOSAL);
    let _ = std::fs::remove_file(&path);
    match status {
        Ok(status) if status.success() => {}
        Ok(status) => {
            ui.warn(&format!(
                "{editor} exited with {status}: the proposal is unchanged"
            ));
            return Ok(None);
        }
        Err(err) => {
            ui.warn(&format!("cannot run {editor}: {err}; set $EDITOR"));
            return Ok(None);
        }
    }
    let text = text?;
    let mut body = text.trim_end().to_string();
    if item.body().ends_with('\n') && !body.is_empty() {
        body.push('\n');
    }
    if body == proposal.body {
        ui.info("no change");
        return Ok(None);
    }
    Ok(Some(body))
}
