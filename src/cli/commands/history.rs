//! `brief history`: the versions of an item.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::cli::output::Outcome;
use crate::cli::review::object;
use crate::cli::ui::{Tone, Ui};
use crate::error::Result;
use crate::store::history::History;
use crate::store::transaction::{BodyState, body_state, find_item};

/// List the versions of an item: number, time, action, tokens, note
///
/// `*` marks the version that is the item's current body. Versions are written by
/// `brief accept`, `brief restore` and `brief record`, never rewritten.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The brief directory
    pub brief: PathBuf,
    /// The item id
    pub item: String,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief_for_versions(&args.brief, &args.item, ui)?;
    let item = find_item(&brief, &args.item)?;
    let history = History::load(&brief.dir, &item.id)?;
    let state = body_state(&history, item.body());
    let dir = args.brief.display();
    let count = history.versions.len();
    let (status, summary, advice) = match state {
        BodyState::Unversioned => (
            "unversioned",
            format!("`{}` has no versions yet", item.id),
            Some(format!(
                "the first accept versions it; or run `brief record {dir} {}`",
                item.id
            )),
        ),
        BodyState::Current => (
            "ok",
            format!(
                "`{}`: {count} version{}, the latest is current",
                item.id,
                plural(count)
            ),
            None,
        ),
        BodyState::Edited => (
            "edited",
            format!(
                "`{}`: {count} version{}; the file was edited since version {count}",
                item.id,
                plural(count)
            ),
            Some(format!(
                "version the edit with `brief record {dir} {} -m NOTE`",
                item.id
            )),
        ),
        BodyState::Interrupted => (
            "interrupted",
            format!(
                "`{}`: version {count} was written but never became the body (an interrupted command); the body is version {}",
                item.id,
                count - 1
            ),
            Some(
                "run the interrupted `brief accept` or `brief restore` again to finish it"
                    .to_string(),
            ),
        ),
    };
    let current = match state {
        BodyState::Current => Some(count),
        BodyState::Interrupted => Some(count - 1),
        _ => None,
    };
    if args.json {
        let versions: Vec<Value> = history
            .versions
            .iter()
            .map(|v| {
                let m = &v.meta;
                json!({"version": m.version, "created": m.created, "action": m.action.as_str(), "from": m.from,
                    "sha256": m.sha256, "tokens": m.tokens, "note": m.note})
            })
            .collect();
        let fields = vec![
            ("item", Value::from(item.id.clone())),
            ("versions", Value::Array(versions)),
        ];
        ui.json(&object(status, &summary, fields))?;
        return Ok(Outcome::Ok);
    }
    if count > 0 {
        ui.outln(&ui.paint(
            &format!(
                "  {:<8} {:<21} {:<9} {:>6} {:>7}  {:<12} NOTE",
                "VERSION", "CREATED", "ACTION", "FROM", "TOKENS", "SHA256"
            ),
            Tone::Dim,
        ))?;
    }
    for (index, v) in history.versions.iter().enumerate() {
        let m = &v.meta;
        let mark = if current == Some(index + 1) { "*" } else { " " };
        let mut note = m.note.clone().unwrap_or_default();
        if let Some(proposal) = &m.proposal {
            note = format!("{proposal} {}", m.model.as_deref().unwrap_or_default())
                .trim()
                .to_string();
        }
        if !m.accepted_flags.is_empty() {
            note.push_str(&format!(
                " (accepted with {} dropped: {})",
                m.accepted_flags.len(),
                m.accepted_flags.join(", ")
            ));
        }
        let line = format!(
            "{mark} {:<8} {:<21} {:<9} {:>6} {:>7}  {:<12} {}",
            m.version,
            m.created,
            m.action.as_str(),
            m.from.map(|f| f.to_string()).unwrap_or_default(),
            m.tokens,
            &m.sha256[..12.min(m.sha256.len())],
            note.trim()
        );
        ui.outln(line.trim_end())?;
    }
    match state {
        BodyState::Current | BodyState::Unversioned => ui.info(&summary),
        _ => ui.warn(&summary),
    }
    if let Some(advice) = advice {
        ui.info(&advice);
    }
    Ok(Outcome::Ok)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
