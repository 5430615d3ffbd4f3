//! Laying a digest out: one heading per field in the seed's order, one block per section,
//! and the measurements taken on exactly the bytes that go into the text.

use crate::ccr::digest::input::{Backed, DigestFile, Named, NamedJson};
use crate::ccr::digest::{
    Backing, Digest, Field, Handling, Options, Section, VERSION, crush, fenced, head_tail,
    lines_of, marker, prose, title,
};
use crate::ccr::{Strategy, hash, thousands};
use crate::tokens::{self, Encoding};

/// Token figures are o200k_base counts: what current OpenAI models bill, and within a few
/// per cent of other providers' tokenizers on English text.
const TOKENS: Encoding = Encoding::O200kBase;

/// Renders `file` (pure: the originals to back are listed in [`Digest::backings`]).
pub fn render(file: &DigestFile, options: &Options) -> Digest {
    let mut r = Renderer {
        options,
        text: format!("# Wake digest ({VERSION})"),
        sections: Vec::new(),
        backings: Vec::new(),
    };
    if let Some(task) = &file.current_task {
        r.heading("Current task");
        r.section(Field::CurrentTask, None, task.clone(), None, None);
    }
    r.verbatim_list(
        Field::HardConstraints,
        "Hard constraints",
        &file.hard_constraints,
    );
    r.verbatim_list(
        Field::DefinitionsOfDone,
        "Definitions of done",
        &file.definitions_of_done,
    );
    r.backed(
        Field::IrreversibleDecisions,
        "Irreversible decisions",
        &file.irreversible_decisions,
    );
    r.backed(Field::OpenThreads, "Open threads", &file.open_threads);
    r.learnings(&file.learnings);
    if !file.tool_outputs.is_empty() {
        r.heading("Tool outputs");
        for (i, output) in file.tool_outputs.iter().enumerate() {
            r.tool_output(i, output);
        }
    }
    if !file.prose_notes.is_empty() {
        r.heading("Notes");
        for (i, note) in file.prose_notes.iter().enumerate() {
            r.prose_note(i, note);
        }
    }
    if !file.bulk_json.is_empty() {
        r.heading("Bulk data");
        for (i, array) in file.bulk_json.iter().enumerate() {
            r.bulk_json(i, array);
        }
    }
    Digest {
        text: r.text,
        sections: r.sections,
        backings: r.backings,
    }
}

struct Renderer<'a> {
    options: &'a Options,
    text: String,
    sections: Vec<Section>,
    backings: Vec<Backing>,
}

impl Renderer<'_> {
    fn heading(&mut self, heading: &str) {
        self.text.push_str("\n\n## ");
        self.text.push_str(heading);
    }

    fn block(&mut self, block: &str) {
        self.text.push_str("\n\n");
        self.text.push_str(block);
    }

    /// Appends a section and records its measurements. `verbatim` is the section written
    /// out whole, which is what "before" measures; `routed` is the form its field's
    /// routing gives, used only when it is smaller (a form with backing must save tokens
    /// too, since it leaves text out), else the verbatim form stands and `reason` says why.
    fn section(
        &mut self,
        field: Field,
        index: Option<usize>,
        verbatim: String,
        routed: Option<Routed>,
        mut reason: Option<String>,
    ) {
        let id = match index {
            Some(i) => format!("{}[{i}]", field.name()),
            None => field.name().to_string(),
        };
        let before = (verbatim.len(), tokens::count(TOKENS, &verbatim));
        let mut chosen = (Handling::Verbatim, verbatim, None, before);
        if let Some(routed) = routed {
            let after = (routed.block.len(), tokens::count(TOKENS, &routed.block));
            // A compacted text no larger in bytes or tokens (the same text included) goes in
            // as routed; a form that leaves text out for the store must also save tokens.
            let smaller = if routed.backing.is_some() {
                after.1 < before.1 && after.0 <= before.0
            } else {
                after.0 <= before.0 && after.1 <= before.1
            };
            if smaller {
                chosen = (routed.handling, routed.block, routed.backing, after);
                reason = None;
            } else {
                reason = Some(format!(
                    "kept verbatim: {} would be {} bytes, {} tokens against {} bytes, {} tokens verbatim",
                    routed.handling.name(),
                    thousands(after.0 as u64),
                    thousands(after.1 as u64),
                    thousands(before.0 as u64),
                    thousands(before.1 as u64)
                ));
            }
        }
        let (handling, block, backing, after) = chosen;
        self.sections.push(Section {
            id,
            field,
            instruction_bearing: field.instruction_bearing(),
            handling,
            bytes_before: before.0,
            bytes_after: after.0,
            tokens_before: before.1,
            tokens_after: after.1,
            cache_hit_expected: false,
            ccr_hash: backing.as_ref().map(|b| b.hash.clone()),
            reason,
        });
        self.block(&block);
        self.backings.extend(backing);
    }

    fn backing(
        &self,
        id: &str,
        name: Option<&str>,
        original: &str,
        compressed: &str,
        strategy: Strategy,
    ) -> Backing {
        let source = match name {
            Some(name) => format!("{} {id} {}", self.options.source, title(name)),
            None => format!("{} {id}", self.options.source),
        };
        Backing {
            hash: hash(original.as_bytes()),
            original: original.to_string(),
            compressed: compressed.to_string(),
            strategy,
            source,
        }
    }

    /// Each text as one bullet, its words untouched (continuation lines indented under it).
    fn verbatim_list(&mut self, field: Field, heading: &str, items: &[String]) {
        if items.is_empty() {
            return;
        }
        self.heading(heading);
        self.section(field, None, bullets(items), None, None);
    }

    /// Decisions (summary verbatim) and open threads (summary compacted), each with its
    /// detail in the store when that makes the entry smaller.
    fn backed(&mut self, field: Field, heading: &str, entries: &[Backed]) {
        if entries.is_empty() {
            return;
        }
        self.heading(heading);
        let verbatim_summary = field.instruction_bearing();
        for (i, entry) in entries.iter().enumerate() {
            let mut whole = format!("- {}", under_item(&entry.summary));
            if let Some(detail) = entry.detail.as_ref().filter(|d| !d.is_empty()) {
                whole.push_str("\n  ");
                whole.push_str(&under_item(detail));
            }
            let summary = if verbatim_summary {
                entry.summary.clone()
            } else {
                prose::compact(&entry.summary)
            };
            let detail = entry.detail.as_ref().filter(|d| !d.trim().is_empty());
            let routed = match detail {
                Some(detail) => {
                    let (strategy, handling) = if verbatim_summary {
                        (Strategy::VerbatimBacking, Handling::VerbatimSummaryCcr)
                    } else {
                        (Strategy::SummaryBacking, Handling::CompactSummaryCcr)
                    };
                    let id = format!("{}[{i}]", field.name());
                    let backing = self.backing(&id, None, detail, &summary, strategy);
                    let lines = lines_of(detail);
                    let left_out = format!(
                        "detail of {} line{} ({} bytes) left out",
                        thousands(lines),
                        if lines == 1 { "" } else { "s" },
                        thousands(detail.len() as u64)
                    );
                    let separator = if verbatim_summary || summary.contains('\n') {
                        "\n  "
                    } else {
                        " "
                    };
                    let block = format!(
                        "- {}{separator}{}",
                        under_item(&summary),
                        marker(&backing.hash, strategy, &left_out)
                    );
                    Some(Routed {
                        handling,
                        block,
                        backing: Some(backing),
                    })
                }
                None if verbatim_summary => None,
                None => Some(Routed {
                    handling: Handling::CompactSummary,
                    block: format!("- {}", under_item(&summary)),
                    backing: None,
                }),
            };
            self.section(field, Some(i), whole, routed, None);
        }
    }

    /// Learnings compacted, exact repeats dropped.
    fn learnings(&mut self, learnings: &[String]) {
        if learnings.is_empty() {
            return;
        }
        self.heading("Learnings");
        let mut seen = std::collections::HashSet::new();
        let compacted: Vec<String> = learnings
            .iter()
            .map(|l| prose::compact(l))
            .filter(|c| !c.is_empty() && seen.insert(c.clone()))
            .collect();
        let routed = Routed {
            handling: Handling::CompactSummary,
            block: bullets(&compacted),
            backing: None,
        };
        self.section(
            Field::Learnings,
            None,
            bullets(learnings),
            Some(routed),
            None,
        );
    }

    fn tool_output(&mut self, i: usize, output: &Named) {
        self.text
            .push_str(&format!("\n\n### {}", title(&output.name)));
        let whole = fenced("text", &output.content);
        let id = format!("tool_outputs[{i}]");
        let mut routed = None;
        if output.content.len() > self.options.min_bytes {
            let cut = head_tail::compress(&output.content);
            if cut.lines_left_out > 0 || cut.lines_shortened > 0 {
                let backing = self.backing(
                    &id,
                    Some(&output.name),
                    &output.content,
                    &cut.text,
                    Strategy::ToolOutputHeadTail,
                );
                let mut left_out = format!(
                    "{} of {} lines left out",
                    thousands(cut.lines_left_out as u64),
                    thousands(cut.lines_total as u64)
                );
                if cut.lines_shortened > 0 {
                    left_out.push_str(&format!(
                        ", {} long lines shortened",
                        thousands(cut.lines_shortened as u64)
                    ));
                }
                let block = format!(
                    "{}\n{}",
                    fenced("text", &cut.text),
                    marker(&backing.hash, Strategy::ToolOutputHeadTail, &left_out)
                );
                routed = Some(Routed {
                    handling: Handling::HeadTailCcr,
                    block,
                    backing: Some(backing),
                });
            }
        }
        self.section(Field::ToolOutputs, Some(i), whole, routed, None);
    }

    fn prose_note(&mut self, i: usize, note: &str) {
        let compact = prose::compact(note);
        let mut routed = Routed {
            handling: Handling::CompactSummary,
            block: compact.clone(),
            backing: None,
        };
        if compact.len() > self.options.min_bytes {
            let budget = (self.options.min_bytes / 4).clamp(160, 1200);
            let summary = prose::lead_summary(&compact, budget);
            let total = prose::words(note) as u64;
            let kept = prose::words(&summary) as u64;
            if kept < total {
                let id = format!("prose_notes[{i}]");
                let backing = self.backing(&id, None, note, &summary, Strategy::SummaryBacking);
                let left_out = format!(
                    "{} of {} words left out",
                    thousands(total - kept),
                    thousands(total)
                );
                routed = Routed {
                    handling: Handling::CompactSummaryCcr,
                    block: format!(
                        "{summary}\n{}",
                        marker(&backing.hash, Strategy::SummaryBacking, &left_out)
                    ),
                    backing: Some(backing),
                };
            }
        }
        self.section(
            Field::ProseNotes,
            Some(i),
            note.to_string(),
            Some(routed),
            None,
        );
    }

    fn bulk_json(&mut self, i: usize, array: &NamedJson) {
        self.text
            .push_str(&format!("\n\n### {}", title(&array.name)));
        let original = &array.content.original;
        let whole = fenced("json", original);
        let mut routed = None;
        if original.len() > self.options.min_bytes {
            let crushed = crush::crush(&array.content.items);
            let id = format!("bulk_json[{i}]");
            let backing = self.backing(
                &id,
                Some(&array.name),
                original,
                &crushed.text,
                Strategy::JsonCrush,
            );
            let left_out = format!(
                "{} of {} items left out",
                thousands(crushed.items_left_out as u64),
                thousands(crushed.items as u64)
            );
            let block = format!(
                "{}\n{}",
                crushed.text,
                marker(&backing.hash, Strategy::JsonCrush, &left_out)
            );
            routed = Some(Routed {
                handling: Handling::JsonCrushCcr,
                block,
                backing: Some(backing),
            });
        }
        self.section(Field::BulkJson, Some(i), whole, routed, None);
    }
}

/// The form a field's routing gives a section, before it is weighed against verbatim.
struct Routed {
    handling: Handling,
    block: String,
    backing: Option<Backing>,
}

/// Each text as one `- ` bullet, its continuation lines indented under it.
fn bullets(items: &[String]) -> String {
    let mut block = String::new();
    for item in items {
        block.push_str("- ");
        block.push_str(&under_item(item.strip_suffix('\n').unwrap_or(item)));
        block.push('\n');
    }
    block.pop();
    block
}

/// `text` as the body of a list item: every line after the first indented two spaces, so
/// a multi-line field stays under its bullet (a line of its own starting `- ` or `#`
/// would otherwise read as a new item or heading). Blank lines stay empty.
fn under_item(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            if !line.is_empty() {
                out.push_str("  ");
            }
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_of_a_multi_line_field_stays_under_its_item() {
        assert_eq!(under_item("one"), "one");
        assert_eq!(under_item("one\ntwo\n\n- three"), "one\n  two\n\n  - three");
        assert_eq!(bullets(&["a\nb\n".into(), "c".into()]), "- a\n  b\n- c");
    }
}
