//! `brief history`: the versions of an item.

use std::path::PathBuf;

use serde::Serialize;

use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::table::{Align, Table};
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
    let report = HistoryReport {
        item: &item.id,
        versions: history
            .versions
            .iter()
            .map(|v| VersionRow {
                version: v.meta.version,
                created: &v.meta.created,
                action: v.meta.action.as_str(),
                from: v.meta.from,
                sha256: &v.meta.sha256,
                tokens: v.meta.tokens,
                note: v.meta.note.as_deref(),
            })
            .collect(),
        history: &history,
        status,
        summary,
        advice,
        warns: matches!(state, BodyState::Edited | BodyState::Interrupted),
        current,
    };
    output::print(ui, Form::json_if(args.json), &report)
}

/// `brief history`'s report.
#[derive(Serialize)]
struct HistoryReport<'a> {
    item: &'a str,
    versions: Vec<VersionRow<'a>>,
    #[serde(skip)]
    history: &'a History,
    #[serde(skip)]
    status: &'static str,
    #[serde(skip)]
    summary: String,
    #[serde(skip)]
    advice: Option<String>,
    /// The body is not the latest version: the summary is a warning.
    #[serde(skip)]
    warns: bool,
    /// The version the body is.
    #[serde(skip)]
    current: Option<usize>,
}

#[derive(Serialize)]
struct VersionRow<'a> {
    version: u32,
    created: &'a str,
    action: &'static str,
    from: Option<u32>,
    sha256: &'a str,
    tokens: usize,
    note: Option<&'a str>,
}

impl Report for HistoryReport<'_> {
    fn status(&self) -> &str {
        self.status
    }

    fn summary(&self) -> String {
        self.summary.clone()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        use Align::{Left, Right};
        let mut table = Table::new(&[Left, Left, Left, Left, Right, Right, Left, Left]).header([
            "", "VERSION", "CREATED", "ACTION", "FROM", "TOKENS", "SHA256", "NOTE",
        ]);
        for (index, v) in self.history.versions.iter().enumerate() {
            let m = &v.meta;
            let mark = if self.current == Some(index + 1) {
                "*"
            } else {
                ""
            };
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
            table.row([
                mark.to_string(),
                m.version.to_string(),
                m.created.clone(),
                m.action.as_str().to_string(),
                m.from.map(|f| f.to_string()).unwrap_or_default(),
                m.tokens.to_string(),
                m.sha256[..12.min(m.sha256.len())].to_string(),
                note.trim().to_string(),
            ]);
        }
        if !table.is_empty() {
            ui.out(&table.render_header_with(|line| ui.paint(line, Tone::Dim)))?;
        }
        if self.warns {
            ui.warn(&self.summary);
        } else {
            ui.info(&self.summary);
        }
        if let Some(advice) = &self.advice {
            ui.info(advice);
        }
        Ok(())
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
