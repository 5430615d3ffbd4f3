//! A type for each imported section, from what the section holds, with the reason.
//!
//! The type decides what may happen to an item (a rule is locked and never sent to a model
//! to be rewritten), so the suggestion is only shown unless `--apply-types` asks for it to
//! be written, and every suggestion says why:
//! - a worked exchange (turns introduced by `User:`/`Assistant:`, `Task:`/`Thought:`,
//!   `Q:`/`A:`, … or an `Example` title) is a `sample`;
//! - a section of constraints (most of its statements say must, never, always, only, do
//!   not, …; fewer under a title such as `Rules`) is a `rule`;
//! - anything else is an `instruction`.

use regex::Regex;
use serde::Serialize;
use std::sync::LazyLock;

use crate::brief::types::ItemType;

/// A suggested type and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suggestion {
    #[serde(rename = "suggested_type")]
    pub kind: ItemType,
    #[serde(rename = "suggested_reason")]
    pub reason: String,
}

/// Words that make a statement a constraint.
static CONSTRAINT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(must|must not|never|always|do not|don't|does not|cannot|can't|may not|shall|should not|shouldn't|only|required?|forbidden|prohibited|not allowed|under no circumstances|at all times|mandatory|no more than|at most|at least)\b",
    )
    .expect("constraint pattern")
});

/// Titles that announce constraints.
static RULE_TITLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(rules?|constraints?|guardrails?|polic(y|ies)|restrictions?|limits?|requirements?|prohibitions?|mandates?|security|safety|compliance|do not|don'ts?|never)\b",
    )
    .expect("rule title pattern")
});

/// Titles that announce worked examples.
static SAMPLE_TITLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(examples?|samples?|few[- ]shot|demonstrations?|worked)\b")
        .expect("sample title pattern")
});

/// A line that opens a turn: `User:`, `**Assistant:**`, `> Q:`, `- Customer:` …
static TURN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*(?:[-*>]\s*)?(?:\*\*|__)?(user|human|customer|caller|client|q|question|input|task|request|prompt|assistant|ai|agent|bot|model|a|answer|output|response|reply|thought|action|observation|final answer)(?:\*\*|__)?\s*:",
    )
    .expect("turn pattern")
});

fn asks(role: &str) -> bool {
    matches!(
        role,
        "user"
            | "human"
            | "customer"
            | "caller"
            | "client"
            | "q"
            | "question"
            | "input"
            | "task"
            | "request"
            | "prompt"
    )
}

/// The type suggested for a section titled `title` whose text is `body`.
pub fn suggest(title: Option<&str>, body: &str) -> Suggestion {
    let title = title.unwrap_or("");
    if let Some(reason) = exchange(body) {
        return Suggestion {
            kind: ItemType::Sample,
            reason,
        };
    }
    if SAMPLE_TITLE.is_match(title) {
        return Suggestion {
            kind: ItemType::Sample,
            reason: format!("titled `{title}`"),
        };
    }
    let statements = statements(body, title);
    let total = statements.len();
    let mut words: Vec<String> = Vec::new();
    let mut constraints = 0;
    for statement in &statements {
        if let Some(m) = CONSTRAINT.find(statement) {
            constraints += 1;
            let word = m.as_str().to_lowercase();
            if !words.contains(&word) && words.len() < 3 {
                words.push(word);
            }
        }
    }
    let share = if total == 0 {
        0.0
    } else {
        constraints as f64 / total as f64
    };
    let listed = words.join(", ");
    if total >= 2 && share >= 0.6 {
        return Suggestion {
            kind: ItemType::Rule,
            reason: format!("{} ({listed})", of_statements(constraints, total)),
        };
    }
    if RULE_TITLE.is_match(title) && constraints >= 1 && share >= 0.3 {
        return Suggestion {
            kind: ItemType::Rule,
            reason: format!(
                "titled `{title}`; {} ({listed})",
                of_statements(constraints, total)
            ),
        };
    }
    Suggestion {
        kind: ItemType::Instruction,
        reason: if total == 0 {
            "no statements to judge".to_string()
        } else {
            format!("{}; no worked exchange", of_statements(constraints, total))
        },
    }
}

/// `2 of 5 statements are constraints`, `0 of 1 statement is a constraint`.
fn of_statements(constraints: usize, total: usize) -> String {
    if total == 1 {
        format!("{constraints} of 1 statement is a constraint")
    } else {
        format!("{constraints} of {total} statements are constraints")
    }
}

/// `a worked exchange: User: then Assistant:` when the text holds a turn that asks
/// followed by one that answers.
fn exchange(body: &str) -> Option<String> {
    let mut asked: Option<String> = None;
    for line in prose_lines(body) {
        let Some(c) = TURN.captures(line) else {
            continue;
        };
        let label = c[1].to_string();
        let role = label.to_lowercase();
        match &asked {
            None if asks(&role) => asked = Some(label),
            Some(first) if !asks(&role) => {
                return Some(format!("a worked exchange: `{first}:` then `{label}:`"));
            }
            _ => {}
        }
    }
    None
}

/// Lines outside fenced code.
fn prose_lines(body: &str) -> impl Iterator<Item = &str> {
    let mut fence: Option<&str> = None;
    body.lines().filter(move |line| {
        let trimmed = line.trim_start();
        let marker = if trimmed.starts_with("```") {
            Some("```")
        } else if trimmed.starts_with("~~~") {
            Some("~~~")
        } else {
            None
        };
        match (fence, marker) {
            (None, Some(m)) => {
                fence = Some(m);
                false
            }
            (Some(open), Some(m)) if open == m => {
                fence = None;
                false
            }
            (Some(_), _) => false,
            (None, None) => true,
        }
    })
}

/// The section's statements: each list item or line of prose, split into sentences;
/// headings, the title line, tags, rules and blank lines are not statements.
fn statements(body: &str, title: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose_lines(body) {
        let line = line.trim();
        if line.is_empty()
            || (!title.is_empty() && line.trim_end_matches(':') == title)
            || line.starts_with('#')
            || (line.starts_with('<') && line.ends_with('>'))
            || line.chars().all(|c| "=-*_ ".contains(c))
        {
            continue;
        }
        let mut start = 0;
        let bytes = line.as_bytes();
        for i in 1..bytes.len().saturating_sub(1) {
            if matches!(bytes[i - 1], b'.' | b'!' | b'?')
                && bytes[i] == b' '
                && bytes[i + 1].is_ascii_uppercase()
            {
                out.push(line[start..i].trim().to_string());
                start = i + 1;
            }
        }
        let rest = line[start..].trim();
        if rest.chars().any(char::is_alphabetic) {
            out.push(rest.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_of_constraints_is_a_rule() {
        let s = suggest(
            Some("Refunds"),
            "## Refunds\n\n- Never refund more than $150 without approval.\n- Refunds must be asked for within 30 days.\n- Only the account owner may ask.\n",
        );
        assert_eq!(s.kind, ItemType::Rule, "{s:?}");
        assert!(s.reason.starts_with("3 of 3 statements"), "{s:?}");
    }

    #[test]
    fn a_rules_title_lowers_the_bar() {
        let body = "RULES\n\nYou must keep answers short. Cite the order number. Never use first names. Be warm.\n";
        assert_eq!(suggest(Some("RULES"), body).kind, ItemType::Rule);
        assert_eq!(suggest(Some("Tone"), body).kind, ItemType::Instruction);
    }

    #[test]
    fn a_worked_exchange_is_a_sample() {
        let s = suggest(
            None,
            "**User:** Where is my parcel?\n\n**Assistant:** It left the depot at noon.\n",
        );
        assert_eq!(s.kind, ItemType::Sample);
        assert!(s.reason.contains("`User:` then `Assistant:`"), "{s:?}");
        let s = suggest(
            None,
            "Task: add the numbers\n\nThought: I will use python.\n",
        );
        assert_eq!(s.kind, ItemType::Sample);
    }

    #[test]
    fn labels_in_code_and_prose_without_constraints_are_instructions() {
        let body = "Format replies like this:\n\n```\nUser: hi\nAssistant: hello\n```\n\nKeep a friendly tone and explain the steps you take.\n";
        let s = suggest(Some("Format"), body);
        assert_eq!(s.kind, ItemType::Instruction, "{s:?}");
    }
}
