//! `brief compact`: lossless whitespace compaction of a brief's items or of any Markdown file.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::brief::{Brief, ItemType, MANIFEST};
use crate::cli::output::{self, Outcome};
use crate::cli::table::{Align, Table};
use crate::cli::ui::{Tone, Ui};
use crate::compact::{compact_document, compact_markdown};
use crate::error::{Error, Result};
use crate::files::inside;
use crate::store::WriterLock;
use crate::tokens;

/// Compact whitespace losslessly: a brief's items, or one Markdown file
///
/// Every change is proven by parsing: the Markdown event streams before and after are
/// equal. On a FILE, prints the compacted text (YAML front matter passes through
/// unchanged). On a BRIEF, reports bytes and tokens saved per item; --write rewrites
/// the non-rule items in place. Rule items are compacted at compose time only.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A brief directory, or any Markdown file
    pub path: PathBuf,
    /// Rewrite files in place (atomically); on a brief, every item except rules and tools
    #[arg(long)]
    pub write: bool,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let is_brief = args.path.is_dir() || args.path.file_name().is_some_and(|n| n == MANIFEST);
    if is_brief {
        compact_brief(&args, ui)
    } else {
        compact_file(&args, ui)
    }
}

fn compact_file(args: &Args, ui: &Ui) -> Result<Outcome> {
    let path = &args.path;
    let text = crate::files::input::read_text(path, crate::files::limits::TEXT_FILE)?;
    let compaction = compact_document(&text);
    if args.write {
        inside::check_not_link(path)?;
    }
    if args.write && is_rule_item(&text) {
        return Err(Error::input(format!(
            "{}: a rule item; rule files are never rewritten (they are compacted at compose time)",
            path.display()
        ))
        .with_hint("run without --write to see the compacted text; nothing was written"));
    }
    if let Some(reason) = &compaction.reason {
        ui.warn(&format!("{}: left unchanged: {reason}", path.display()));
    }
    if args.write && compaction.text != text {
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        inside::write_file(dir, path, compaction.text.as_bytes())?;
    }
    if args.json {
        let summary = format!("{} bytes → {} bytes", text.len(), compaction.text.len());
        let report = FileJson {
            file: path,
            proven: compaction.proven,
            bytes_before: text.len(),
            bytes_after: compaction.text.len(),
            written: args.write && compaction.text != text,
            text: &compaction.text,
        };
        let status = if compaction.proven { "ok" } else { "unproven" };
        output::json(ui, status, &summary, &report)?;
    } else if args.write {
        ui.info(&format!(
            "{}: {} → {} bytes",
            path.display(),
            text.len(),
            compaction.text.len()
        ));
    } else {
        ui.out(&compaction.text)?;
    }
    Ok(Outcome::Ok)
}

/// `compact FILE --json`, after `status` and `summary`.
#[derive(Serialize)]
struct FileJson<'a> {
    file: &'a Path,
    proven: bool,
    bytes_before: usize,
    bytes_after: usize,
    written: bool,
    text: &'a str,
}

/// `compact BRIEF --json`, after `status` and `summary`.
#[derive(Serialize)]
struct BriefJson<'a> {
    brief: &'a str,
    items: Vec<ItemJson<'a>>,
}

#[derive(Serialize)]
struct ItemJson<'a> {
    id: &'a str,
    bytes_before: usize,
    bytes_after: usize,
    tokens_before: usize,
    tokens_after: usize,
    proven: bool,
    reason: Option<&'a str>,
    kept: Option<&'static str>,
    written: bool,
}

/// Whether a Markdown file's front matter says `type: rule`.
fn is_rule_item(text: &str) -> bool {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return false;
    };
    rest.lines()
        .take_while(|line| *line != "---" && *line != "...")
        .any(|line| {
            line.split_once(':').is_some_and(|(key, value)| {
                key.trim() == "type" && value.trim().trim_matches(['"', '\'']) == "rule"
            })
        })
}

struct Row {
    id: String,
    bytes: (usize, usize),
    tokens: (usize, usize),
    proven: bool,
    reason: Option<String>,
    /// Why the file is not rewritten, for rules and tools.
    kept: Option<&'static str>,
    written: bool,
}

fn compact_brief(args: &Args, ui: &Ui) -> Result<Outcome> {
    let brief = super::load_brief(&args.path, ui)?;
    let _lock = if args.write {
        Some(WriterLock::acquire(&brief.dir)?)
    } else {
        None
    };
    if args.write {
        // Every target checked before the first write: a refusal leaves nothing written.
        for item in brief.items.iter().filter(|i| !i.is_tool()) {
            inside::check_target(&brief.dir, &item.path)?;
        }
    }
    let encoding = brief.manifest.tokenizer;
    let mut rows = Vec::new();
    for item in &brief.items {
        if item.is_tool() {
            continue;
        }
        let body = item.body();
        let compaction = if item.messages().is_some() {
            crate::compact::compact_messages(body)
        } else {
            compact_markdown(body)
        };
        let kept = (item.kind == ItemType::Rule).then_some("rule: compacted at compose time only");
        let mut row = Row {
            id: item.id.clone(),
            bytes: (body.len(), compaction.text.len()),
            tokens: (
                tokens::count(encoding, body),
                tokens::count(encoding, &compaction.text),
            ),
            proven: compaction.proven,
            reason: compaction.reason.clone(),
            kept,
            written: false,
        };
        if args.write && kept.is_none() && compaction.proven && compaction.text != body {
            write_item(&brief, item.front_matter(), &compaction.text, &item.path)?;
            row.written = true;
        }
        rows.push(row);
    }
    report(args, ui, &brief, &rows)
}

fn write_item(brief: &Brief, front_matter: &str, body: &str, path: &Path) -> Result<()> {
    let mut text = String::with_capacity(front_matter.len() + body.len());
    text.push_str(front_matter);
    text.push_str(body);
    inside::write_file(&brief.dir, path, text.as_bytes())
}

fn report(args: &Args, ui: &Ui, brief: &Brief, rows: &[Row]) -> Result<Outcome> {
    let saved_bytes: usize = rows
        .iter()
        .map(|r| r.bytes.0 - r.bytes.0.min(r.bytes.1))
        .sum();
    let saved_tokens: usize = rows
        .iter()
        .map(|r| r.tokens.0 - r.tokens.0.min(r.tokens.1))
        .sum();
    let written = rows.iter().filter(|r| r.written).count();
    let unproven = rows.iter().filter(|r| !r.proven).count();
    let summary = format!(
        "saved {saved_bytes} bytes and {saved_tokens} tokens over {} items; {written} written, {unproven} left unchanged (unproven)",
        rows.len()
    );
    if args.json {
        let report = BriefJson {
            brief: &brief.manifest.name,
            items: rows
                .iter()
                .map(|r| ItemJson {
                    id: &r.id,
                    bytes_before: r.bytes.0,
                    bytes_after: r.bytes.1,
                    tokens_before: r.tokens.0,
                    tokens_after: r.tokens.1,
                    proven: r.proven,
                    reason: r.reason.as_deref(),
                    kept: r.kept,
                    written: r.written,
                })
                .collect(),
        };
        let status = if unproven > 0 { "unproven" } else { "ok" };
        output::json(ui, status, &summary, &report)?;
        return Ok(Outcome::Ok);
    }
    use Align::{Left, Right};
    let mut table =
        Table::new(&[Left, Right, Right, Left]).header(["ITEM", "BYTES", "TOKENS", "NOTE"]);
    for r in rows {
        let note = if !r.proven {
            ui.paint(
                &format!(
                    "left unchanged: {}",
                    r.reason.as_deref().unwrap_or("unproven")
                ),
                Tone::Warning,
            )
        } else if let Some(kept) = r.kept {
            kept.to_string()
        } else if r.written {
            ui.paint("written", Tone::Good)
        } else if r.bytes.0 == r.bytes.1 {
            "already compact".to_string()
        } else {
            String::new()
        };
        table.row([
            r.id.clone(),
            format!("{} → {}", r.bytes.0, r.bytes.1),
            format!("{} → {}", r.tokens.0, r.tokens.1),
            note,
        ]);
    }
    ui.out(&table.render_header_with(|line| ui.paint(line, Tone::Dim)))?;
    ui.info(&summary);
    let pending = rows
        .iter()
        .filter(|r| r.proven && r.kept.is_none() && !r.written && r.bytes.0 != r.bytes.1)
        .count();
    if !args.write && pending > 0 {
        ui.info(&format!(
            "run with --write to rewrite {pending} item file{}",
            if pending == 1 { "" } else { "s" }
        ));
    }
    Ok(Outcome::Ok)
}
