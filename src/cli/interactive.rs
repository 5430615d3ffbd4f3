//! The review question `brief compress` asks on a terminal: accept, discard, edit or later.
//! Not a subcommand.

use std::path::Path;

use super::review::{print_commands, render_guard, show_proposal};
use crate::brief::{Brief, Item};
use crate::cli::output::Outcome;
use crate::cli::ui::{Tone, Ui};
use crate::compress::review::{self, Reviewed};
use crate::error::{Error, ErrorKind, Result};
use crate::store::proposals::Proposal;
use crate::store::transaction;

/// Asks about a proposal `brief compress` just made for `item`.
pub fn ask(
    ui: &Ui,
    brief_arg: &Path,
    brief: &Brief,
    item: &Item,
    proposal: Proposal,
) -> Result<Outcome> {
    ask_about(ui, brief_arg, Reviewed::fresh(brief, item, proposal))
}

/// Asks until the operator decides; an empty answer (or end of input) means later. Each
/// answer is one library call: accept, discard, or revise with the edited body.
pub fn ask_about(ui: &Ui, brief_arg: &Path, mut reviewed: Reviewed) -> Result<Outcome> {
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
        let (dir, id) = (&reviewed.brief_dir, &reviewed.proposal.id);
        match answer.trim().to_ascii_lowercase().as_str() {
            "a" | "accept" => {
                if reviewed.proposal.guard.is_flagged() && !confirm_flags(ui, &reviewed)? {
                    ui.info("not accepted");
                    continue;
                }
                let accepted = crate::prompt::relock::accept(dir, id, true, &mut |_| {})?;
                ui.info(&format!(
                    "accepted: `{}` is now version {} (wrote {})",
                    reviewed.item.id,
                    accepted.version.unwrap_or_default(),
                    accepted.versions_written()
                ));
                if let Some(relock) = &accepted.relock {
                    ui.info(&crate::cli::review::relock_line(relock));
                }
                return Ok(Outcome::Ok);
            }
            "d" | "discard" => {
                transaction::discard(dir, id)?;
                ui.info("discarded: nothing else was written");
                return Ok(Outcome::Ok);
            }
            "e" | "edit" => {
                let Some(body) = edit(ui, &reviewed.item, &reviewed.proposal)? else {
                    continue;
                };
                // A conversation sample's edit must keep its messages and roles.
                reviewed = match review::revise(dir, id, body) {
                    Ok(revised) => revised,
                    Err(err) if err.kind == ErrorKind::Input => {
                        ui.warn(&format!("{}: the proposal is unchanged", err.message));
                        continue;
                    }
                    Err(err) => return Err(err),
                };
                show_proposal(ui, &reviewed.item, &reviewed.proposal, &reviewed.summary)?;
            }
            "" | "l" | "later" => {
                let flagged = reviewed.proposal.guard.is_flagged();
                print_commands(ui, brief_arg, id, flagged)?;
                return Ok(Outcome::Ok);
            }
            other => ui.err_line(&format!("`{other}`: answer a, d, e or l")),
        }
    }
}

/// Shows what the guard found (against the item's current body) and asks for an explicit
/// second confirmation: true when the operator typed `accept`.
pub fn confirm_flags(ui: &Ui, reviewed: &Reviewed) -> Result<bool> {
    let proposal = &reviewed.proposal;
    ui.err_line(&format!(
        "{} proposal {} drops or changes facts or instructions of `{}`:",
        ui.paint_err("warning:", Tone::Warning),
        proposal.id,
        proposal.item
    ));
    ui.err_line(render_guard(&Ui::plain(), &reviewed.item, &proposal.guard).trim_end());
    ui.err_line("Type `accept` to accept it anyway, anything else to stop: ");
    let answer = console::Term::stderr().read_line().map_err(Error::from)?;
    Ok(answer.trim() == "accept")
}

/// Opens the proposal's body in `$VISUAL` or `$EDITOR` (else `vi`); the edited text, or
/// `None` when nothing changed or the editor failed (said on stderr).
fn edit(ui: &Ui, item: &Item, proposal: &Proposal) -> Result<Option<String>> {
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_string());
    let text = match run_editor(&editor, &proposal.body)? {
        Ok(text) => text,
        Err(why) => {
            ui.warn(&why);
            return Ok(None);
        }
    };
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

/// Runs `editor` (a program and its arguments, split on whitespace) on a temporary copy of
/// `text` and returns what it left there; `Err(why)` when the editor could not run or
/// failed. The copy is a new file with an unpredictable name, created exclusively and
/// readable by its owner only (`tempfile`): a predictable name in a shared temporary
/// directory would let another user plant a link there and have the body written through
/// it. The file is removed afterwards, whatever the editor did.
fn run_editor(editor: &str, text: &str) -> Result<Result<String, String>> {
    use std::io::Write as _;
    let mut file = tempfile::Builder::new()
        .prefix("brief-edit-")
        .suffix(".md")
        .tempfile()
        .map_err(|e| Error::io(&std::env::temp_dir(), &e))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.flush())
        .map_err(|e| Error::io(file.path(), &e))?;
    let path = file.path().to_path_buf();
    let mut words = editor.split_whitespace();
    let program = words.next().unwrap_or("vi");
    let status = std::process::Command::new(program)
        .args(words)
        .arg(&path)
        .status();
    // Editors often save by writing a new file and renaming it over the old one: read by
    // path, not through the handle; at most what a proposal file may hold.
    let edited = crate::files::input::read_text(&path, crate::files::limits::EDITED_PROPOSAL);
    drop(file);
    match status {
        Ok(status) if status.success() => {}
        Ok(status) => {
            return Ok(Err(format!(
                "{editor} exited with {status}: the proposal is unchanged"
            )));
        }
        Err(err) => return Ok(Err(format!("cannot run {editor}: {err}; set $EDITOR"))),
    }
    edited.map(Ok)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    /// A shell editor that records the file it was given and its mode, then edits it.
    fn recording_editor(dir: &Path) -> String {
        let script = dir.join("editor.sh");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\nprintf '%s\\n' \"$1\" >> {log}\nstat -c %a \"$1\" >> {log}\nprintf 'edited\\n' >> \"$1\"\n",
                log = dir.join("log").display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        script.display().to_string()
    }

    /// Regression (issue 23): the editor's copy was written with `fs::write` to
    /// `brief-<proposal>-<pid>.md` in the shared temporary directory, so a link planted at
    /// that name had the proposal written through it. The copy is now a fresh private file
    /// with an unpredictable name, gone afterwards.
    #[test]
    fn the_editor_gets_a_private_unpredictable_temp_file_that_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let editor = recording_editor(dir.path());
        let first = run_editor(&editor, "body\n").unwrap().unwrap();
        let second = run_editor(&editor, "body\n").unwrap().unwrap();
        assert_eq!(first, "body\nedited\n");
        assert_eq!(second, first);
        let log = std::fs::read_to_string(dir.path().join("log")).unwrap();
        let lines: Vec<&str> = log.lines().collect();
        let (a, b) = (Path::new(lines[0]), Path::new(lines[2]));
        assert_ne!(a, b, "each edit gets its own name");
        assert_eq!(lines[1], "600", "readable by its owner only");
        assert_eq!(lines[3], "600");
        let pid = std::process::id().to_string();
        assert!(!lines[0].contains(&pid), "{}", lines[0]);
        assert!(!a.exists() && !b.exists(), "the copies are removed");
    }

    #[test]
    fn an_editor_that_fails_or_cannot_run_leaves_the_text_unchanged() {
        let failed = run_editor("false", "body").unwrap().unwrap_err();
        assert!(failed.contains("exited with"), "{failed}");
        let missing = run_editor("/nonexistent/editor", "body")
            .unwrap()
            .unwrap_err();
        assert!(missing.contains("cannot run"), "{missing}");
    }
}
