//! The port of the shared `score.py`: labels, character spans in the original, and the matching
//! of the guard's reports to labelled units and changes (see `guard_real.rs` for the rules).

use std::collections::{BTreeMap, HashSet};

use regex::Regex;
use serde::Deserialize;
use serde_json::Value;

pub(super) const RULE: [&str; 2] = ["instruction", "fact"];

#[derive(Deserialize)]
pub(super) struct Labels {
    pub(super) units: Vec<Unit>,
    #[serde(default)]
    pub(super) changes: Option<Vec<Change>>,
}

#[derive(Deserialize)]
pub(super) struct Unit {
    pub(super) id: String,
    pub(super) line: i64,
    pub(super) col: i64,
    pub(super) text: String,
    pub(super) kind: String,
    pub(super) label: String,
}

impl Unit {
    pub(super) fn is_rule(&self) -> bool {
        RULE.contains(&self.kind.as_str())
    }
    pub(super) fn is_loss(&self) -> bool {
        self.is_rule() && (self.label == "DROPPED" || self.label == "WEAKENED")
    }
}

#[derive(Deserialize)]
pub(super) struct Change {
    pub(super) line: i64,
    pub(super) kind: String,
    pub(super) original: String,
}

pub(super) type Span = (i64, i64);

/// The original, addressed in characters (as Python strings are), with line starts.
pub(super) struct Text {
    s: String,
    /// Byte offset of each character, plus the length.
    byte_at: Vec<usize>,
    /// Character offset where each line starts.
    starts: Vec<i64>,
}

impl Text {
    pub(super) fn new(s: String) -> Self {
        let mut byte_at: Vec<usize> = s.char_indices().map(|(b, _)| b).collect();
        byte_at.push(s.len());
        let mut starts = vec![0];
        for (i, c) in s.chars().enumerate() {
            if c == '\n' {
                starts.push(i as i64 + 1);
            }
        }
        Text { s, byte_at, starts }
    }

    fn char_of_byte(&self, b: usize) -> i64 {
        self.byte_at.partition_point(|&x| x < b) as i64
    }

    fn off(&self, line: i64, col: i64) -> i64 {
        let line = line.min(self.starts.len() as i64).max(1);
        self.starts[(line - 1) as usize] + col.max(1) - 1
    }

    /// Character span of `text` in the original, found near (line, col), whitespace-tolerant.
    pub(super) fn span(&self, text: &str, line: i64, col: i64) -> Span {
        let toks: Vec<&str> = text.split_whitespace().collect();
        let at = self.off(line, col);
        if !toks.is_empty() {
            let escaped: Vec<String> = toks.iter().map(|t| regex::escape(t)).collect();
            let pat = Regex::new(&escaped.join(r"\s+")).expect("escaped tokens form a regex");
            let idx = (line.min(self.starts.len() as i64) - 1).max(0) as usize;
            let line_start = self.starts[idx];
            for start in [(at - 2).max(0), line_start, (line_start - 400).max(0)] {
                let start = (start as usize).min(self.byte_at.len() - 1);
                if let Some(m) = pat.find_at(&self.s, self.byte_at[start]) {
                    let (a, b) = (self.char_of_byte(m.start()), self.char_of_byte(m.end()));
                    if a - at < 2000 {
                        return (a, b);
                    }
                }
            }
        }
        (at, at + text.chars().count() as i64)
    }
}

fn overlap(a: Span, b: Span) -> i64 {
    (a.1.min(b.1) - a.0.max(b.0)).max(0)
}

/// Units that the span covers substantially (a share of the unit or of the span).
fn hits(span: Span, units: &[(Unit, Span)], min_share: f64) -> Vec<&Unit> {
    let mut out = Vec::new();
    for (u, us) in units {
        let o = overlap(span, *us) as f64;
        if o > 0.0 && (o >= min_share * (us.1 - us.0) as f64 || o >= 0.5 * (span.1 - span.0) as f64)
        {
            out.push(u);
        }
    }
    out
}

/// Every report item listed under a key naming `word` anywhere in the guard's JSON (a report
/// moved to another key or level, e.g. a lower-confidence list, still counts as shown); keys
/// naming `context` are informational and skipped.
fn reports<'a>(node: &'a Value, word: &str, found: &mut Vec<&'a Value>) {
    match node {
        Value::Object(map) => {
            for (k, v) in map {
                match v {
                    Value::Array(items) if k.contains(word) && !k.contains("context") => {
                        found.extend(items.iter().filter(|it| it.is_object()));
                    }
                    _ => reports(v, word, found),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| reports(v, word, found)),
        _ => {}
    }
}

fn int(item: &Value, key: &str) -> i64 {
    item.get(key).and_then(Value::as_i64).unwrap_or(1)
}

fn string<'a>(item: &'a Value, key: &str) -> &'a str {
    item.get(key).and_then(Value::as_str).unwrap_or("")
}

pub(super) fn cut(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// Counts of one pair (or of all), named as in score.py.
#[derive(Default, Clone)]
pub(super) struct Counts(pub(super) BTreeMap<&'static str, i64>);

impl Counts {
    pub(super) fn get(&self, k: &str) -> i64 {
        self.0.get(k).copied().unwrap_or(0)
    }
    pub(super) fn add(&mut self, k: &'static str, n: i64) {
        *self.0.entry(k).or_insert(0) += n;
    }
    pub(super) fn absorb(&mut self, other: &Counts) {
        for (k, v) in &other.0 {
            self.add(k, *v);
        }
    }
}

pub(super) struct Scored {
    pub(super) counts: Counts,
    pub(super) notes: Vec<String>,
    pub(super) false_reasons: Vec<&'static str>,
}

pub(super) fn score_pair(
    units: Vec<(Unit, Span)>,
    changes: Vec<(Change, Span)>,
    text: &Text,
    out: &Value,
) -> Scored {
    let mut c = Counts::default();
    let mut notes = Vec::new();
    let mut false_reasons = Vec::new();
    // Instruction layer.
    let mut found: HashSet<&str> = HashSet::new();
    let mut items = Vec::new();
    reports(out, "instruction", &mut items);
    for it in items {
        let span = text.span(string(it, "text"), int(it, "line"), int(it, "column"));
        let hs = hits(span, &units, 0.3);
        found.extend(hs.iter().map(|u| u.id.as_str()));
        let line = it.get("line").cloned().unwrap_or(Value::Null);
        if let Some(bad) = hs.iter().find(|u| u.is_loss()) {
            c.add("i_tp", 1);
            notes.push(format!(
                "TP instr L{line} ({}): {:?}",
                bad.label,
                cut(string(it, "text"), 110)
            ));
            continue;
        }
        c.add("i_fp", 1);
        let why = if hs.is_empty() {
            "not a labelled unit"
        } else if hs.iter().all(|u| u.kind == "context") {
            "context only"
        } else {
            "kept"
        };
        false_reasons.push(why);
        notes.push(format!(
            "FP instr L{line} ({why}): {:?}  [{}]",
            cut(string(it, "text"), 110),
            cut(string(it, "reason"), 60)
        ));
    }
    for (u, _) in &units {
        if u.is_rule() && u.label == "DROPPED" {
            c.add("dropped", 1);
            if found.contains(u.id.as_str()) {
                c.add("d_found", 1);
            } else {
                c.add("i_fn", 1);
                notes.push(format!("MISS instr L{}: {:?}", u.line, cut(&u.text, 110)));
            }
        }
        if u.is_rule() && u.label == "WEAKENED" {
            c.add("weakened", 1);
        }
    }
    // Change layer.
    let mut caught: HashSet<usize> = HashSet::new();
    let mut weak_caught: HashSet<&str> = HashSet::new();
    let mut items = Vec::new();
    reports(out, "change", &mut items);
    for it in items {
        let span = text.span(string(it, "original"), int(it, "line"), int(it, "column"));
        let ch: Vec<usize> = (0..changes.len())
            .filter(|&i| overlap(span, changes[i].1) > 0)
            .collect();
        let us: Vec<&Unit> = hits(span, &units, 0.2)
            .into_iter()
            .filter(|u| u.is_loss())
            .collect();
        caught.extend(ch.iter().copied());
        weak_caught.extend(us.iter().map(|u| u.id.as_str()));
        let right = if ch.is_empty() && us.is_empty() {
            "FP"
        } else {
            "TP"
        };
        c.add(if right == "TP" { "c_tp" } else { "c_fp" }, 1);
        notes.push(format!(
            "{right} change L{} {}: {:?} -> {:?}",
            it.get("line").cloned().unwrap_or(Value::Null),
            it.get("kind").cloned().unwrap_or(Value::Null),
            cut(string(it, "original"), 70),
            cut(string(it, "proposal"), 60)
        ));
    }
    for it in out
        .get("dropped")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let span = text.span(string(it, "value"), int(it, "line"), int(it, "column"));
        caught.extend(
            (0..changes.len())
                .filter(|&i| changes[i].0.kind == "value" && overlap(span, changes[i].1) > 0),
        );
    }
    for (i, (x, _)) in changes.iter().enumerate() {
        c.add("changes", 1);
        if caught.contains(&i) {
            c.add("ch_found", 1);
        } else {
            c.add("c_fn", 1);
            notes.push(format!(
                "MISS change L{} {}: {:?}",
                x.line,
                x.kind,
                cut(&x.original, 90)
            ));
        }
    }
    for (u, _) in &units {
        let id = u.id.as_str();
        if u.is_rule() && u.label == "WEAKENED" && (found.contains(id) || weak_caught.contains(id))
        {
            c.add("w_found", 1);
        }
    }
    let status = out.get("status").and_then(Value::as_str);
    c.add(
        "flagged",
        i64::from(!matches!(status, None | Some("clean") | Some("ok"))),
    );
    let should = c.get("dropped") > 0 || c.get("weakened") > 0 || !changes.is_empty();
    c.add("should", i64::from(should));
    c.add(
        "units",
        units.iter().filter(|(u, _)| u.is_rule()).count() as i64,
    );
    Scored {
        counts: c,
        notes,
        false_reasons,
    }
}
