//! `brief guard` judged on real rewrites: published before/after pairs of agent instruction files
//! (CLAUDE.md, AGENTS.md, Copilot instructions, Cursor rules) that real compressors produced,
//! every unit of each original labelled by hand before the guard was run on it
//! (`tests/guard_real/`: pairs, labels, the labeller's notes and SOURCES.md).
//!
//! The matching is a faithful port of the shared `score.py`, so its numbers and these agree:
//! - Instruction layer (`dropped_instructions`): a report is matched to the labelled units whose
//!   text it overlaps in the original (by character span). Right when one of them is an
//!   instruction or fact labelled DROPPED or WEAKENED; false when they are all KEPT, only context,
//!   or none. A miss is a DROPPED instruction or fact that no report overlaps.
//! - Change layer (`changed`): right when the reported original text overlaps a labelled change or
//!   a WEAKENED or DROPPED instruction or fact. A labelled change is caught by an overlapping
//!   `changed` item or, for a changed value, by an overlapping `dropped` fact.
//!
//! Set `GUARD_REAL_VERBOSE=1` to print every report, right or false.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::brief;

mod score;
use score::{Change, Counts, Labels, Span, Text, Unit, cut, score_pair};

// What the guard reaches on this held-out set (measured 2026-12-02: instructions P=0.15
// R=0.27 (30/176/16), changes P=0.14 R=0.24 (4/25/35), weakened 26/44, 12 of 13 pairs not
// clean; after the change layer asked for evidence and read weakenings: changes P=0.70
// R=0.30 (7/3/32), weakened 29/44, 11 of 13 pairs not clean, every lossy pair among them). Issue 32's targets are higher (instruction P 0.75, change P 0.50, every DROPPED
// found, 40% of changes, half the weakened): these floors keep what is reached from sliding
// back while the guard climbs; raise them with it. Guardins (notation, short forms, what a
// unit is): instructions P=0.33 R=0.68 (33/68/7), weakened 25/44 (the earlier 26 included
// crux units hit by false "dropped" reports). Then ten fresh pairs, labelled blind and never
// tuned on (SOURCES.md, "valset"), joined the set: over all 23 pairs, instructions P=0.47
// R=0.47 (104/117/83), changes P=0.46 R=0.36 (16/19/45), weakened 39/76. The floors below are
// those figures over the 23 pairs. Reading a script without spaces a character at a time (and
// its full-width punctuation) then took instructions to P=0.49 R=0.46 (103/106/84). Ginstr
// (no report for a lost `must`, agent descriptions, list intros and purpose clauses as
// context, reference lines checked as facts, contrasts, verb/noun and irregular forms) took
// them to P=0.58 R=0.60 (126/90/63); the floors sit a little under that.
// The change layer reading table cells, merged items, restrictions and statements (gchg):
// changes P=0.83 R=0.43 (20/4/40), weakened 42/76. Statements (a fact that went whole is
// reported) took the 23 pairs' instructions to P=0.58 R=0.65 (140/100/55). Then twelve blind
// pairs joined (SOURCES.md, "The blind pairs"; scored before and after that session's
// changes, none tuned on them — before: instructions P=0.83 R=0.36, changes P=0.10 R=0.50,
// weakened 6/30; after: instructions P=0.88 R=0.67, changes P=0.17 R=0.50, weakened 15/30).
// Over all 35 pairs: instructions P=0.73 R=0.66 (356/130/137), changes P=0.61 R=0.45
// (22/14/52), weakened 59/106; the floors below sit a little under that.
/// Share of `dropped_instructions` reports that point at a real loss.
const MIN_INSTRUCTION_PRECISION: f64 = 0.70;
/// Share of `changed` reports that point at a real loss.
const MIN_CHANGE_PRECISION: f64 = 0.58;
/// Share of DROPPED instructions and facts that some report names (the target is 1.0).
const MIN_DROPPED_RECALL: f64 = 0.63;
/// Share of labelled changed constraints that some report catches.
const MIN_CHANGE_RECALL: f64 = 0.42;
/// Share of WEAKENED instructions and facts reported in either layer.
const MIN_WEAKENED_FOUND: f64 = 0.53;
/// Every pair with a real loss gets a status other than `clean`.
const EVERY_LOSSY_PAIR_FLAGGED: bool = true;
/// The set itself: at least this many labelled pairs.
const MIN_PAIRS: usize = 10;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/guard_real")
}

fn ratio(num: i64, den: i64) -> f64 {
    if den == 0 {
        1.0
    } else {
        num as f64 / den as f64
    }
}

/// Runs `brief guard ORIGINAL PROPOSAL --json` the way an operator's CI would.
fn run_guard(original: &Path, proposal: &Path) -> Result<Value, String> {
    let output = brief()
        .args(["guard"])
        .arg(original)
        .arg(proposal)
        .arg("--json")
        .output()
        .map_err(|e| e.to_string())?;
    if !matches!(output.status.code(), Some(0 | 1)) {
        let err = String::from_utf8_lossy(&output.stderr);
        let code = output
            .status
            .code()
            .map_or("by a signal".into(), |c| c.to_string());
        return Err(format!("exit {code}: {}", cut(err.trim(), 200)));
    }
    serde_json::from_slice(&output.stdout).map_err(|e| format!("not JSON: {e}"))
}

#[test]
fn guard_on_real_rewrites_reaches_the_targets() {
    let verbose = std::env::var_os("GUARD_REAL_VERBOSE").is_some();
    let (ldir, pdir) = (dir().join("labels"), dir().join("pairs"));
    let mut names: Vec<String> = std::fs::read_dir(&ldir)
        .expect("tests/guard_real/labels")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|f| f.strip_suffix(".yaml").map(str::to_owned))
        .collect();
    names.sort();
    let mut tot = Counts::default();
    let mut reasons: BTreeMap<&str, i64> = BTreeMap::new();
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    let mut failed = Vec::new();
    for name in &names {
        let yaml = std::fs::read_to_string(ldir.join(format!("{name}.yaml"))).unwrap();
        let labels: Labels =
            serde_yaml::from_str(&yaml).unwrap_or_else(|e| panic!("{name}.yaml: {e}"));
        let orig_path = pdir.join(format!("{name}.original.md"));
        let text = Text::new(std::fs::read_to_string(&orig_path).unwrap());
        let units: Vec<(Unit, Span)> = labels
            .units
            .into_iter()
            .map(|u| {
                let span = text.span(&u.text, u.line, u.col);
                (u, span)
            })
            .collect();
        let changes: Vec<(Change, Span)> = labels
            .changes
            .unwrap_or_default()
            .into_iter()
            .map(|c| {
                let span = text.span(&c.original, c.line, 1);
                (c, span)
            })
            .collect();
        let out = match run_guard(&orig_path, &pdir.join(format!("{name}.compressed.md"))) {
            Ok(out) => out,
            Err(e) => {
                failed.push(format!("{name}: guard failed: {e}"));
                continue;
            }
        };
        let scored = score_pair(units, changes, &text, &out);
        for r in &scored.false_reasons {
            *reasons.entry(r).or_insert(0) += 1;
        }
        notes.extend(
            scored
                .notes
                .into_iter()
                .filter(|n| verbose || n.starts_with("MISS"))
                .map(|n| format!("  {name}: {n}")),
        );
        tot.absorb(&scored.counts);
        rows.push((name.clone(), scored.counts));
    }

    println!(
        "{:28} {:>5} {:>3} {:>3} {:>3} | {:>4} {:>4} {:>4} | {:>4} {:>4} {:>4} | status",
        "pair", "units", "D", "W", "chg", "i_tp", "i_fp", "miss", "c_tp", "c_fp", "miss"
    );
    for (name, c) in &rows {
        println!(
            "{name:28} {:5} {:3} {:3} {:3} | {:4} {:4} {:4} | {:4} {:4} {:4} | {}",
            c.get("units"),
            c.get("dropped"),
            c.get("weakened"),
            c.get("changes"),
            c.get("i_tp"),
            c.get("i_fp"),
            c.get("i_fn"),
            c.get("c_tp"),
            c.get("c_fp"),
            c.get("c_fn"),
            if c.get("flagged") > 0 {
                "flagged"
            } else {
                "clean"
            }
        );
    }
    for n in notes.iter().chain(&failed) {
        println!("{n}");
    }
    let t = |k: &str| tot.get(k);
    let ip = ratio(t("i_tp"), t("i_tp") + t("i_fp"));
    let ir = ratio(t("d_found"), t("dropped"));
    let cp = ratio(t("c_tp"), t("c_tp") + t("c_fp"));
    let cr = ratio(t("ch_found"), t("changes"));
    let wf = ratio(t("w_found"), t("weakened"));
    println!(
        "labels: {} instruction/fact units, {} DROPPED, {} WEAKENED, {} changed constraints; \
         {} of {} pairs have a genuine loss or change",
        t("units"),
        t("dropped"),
        t("weakened"),
        t("changes"),
        t("should"),
        rows.len()
    );
    println!(
        "false instruction reports by reason: {reasons:?}; \
         WEAKENED units reported in either layer: {}/{}",
        t("w_found"),
        t("weakened")
    );
    println!(
        "guard-real: instructions P={ip:.2} R={ir:.2} ({}/{}/{}), changes P={cp:.2} R={cr:.2} \
         ({}/{}/{}), pairs flagged {}/{}",
        t("i_tp"),
        t("i_fp"),
        t("i_fn"),
        t("c_tp"),
        t("c_fp"),
        t("c_fn"),
        t("flagged"),
        rows.len()
    );

    let mut misses = failed;
    if rows.len() < MIN_PAIRS {
        misses.push(format!(
            "only {} labelled pairs scored, want {MIN_PAIRS}",
            rows.len()
        ));
    }
    let mut check = |ok: bool, what: String| {
        if !ok {
            misses.push(what);
        }
    };
    check(
        ip >= MIN_INSTRUCTION_PRECISION,
        format!("instruction precision {ip:.2} < {MIN_INSTRUCTION_PRECISION}"),
    );
    check(
        cp >= MIN_CHANGE_PRECISION,
        format!("change precision {cp:.2} < {MIN_CHANGE_PRECISION}"),
    );
    check(
        ir >= MIN_DROPPED_RECALL,
        format!("dropped found {ir:.2} < {MIN_DROPPED_RECALL}"),
    );
    check(
        cr >= MIN_CHANGE_RECALL,
        format!("changes caught {cr:.2} < {MIN_CHANGE_RECALL}"),
    );
    check(
        wf >= MIN_WEAKENED_FOUND,
        format!("weakened reported {wf:.2} < {MIN_WEAKENED_FOUND}"),
    );
    if EVERY_LOSSY_PAIR_FLAGGED {
        for (name, c) in &rows {
            check(
                c.get("should") == 0 || c.get("flagged") > 0,
                format!("{name} has a real loss but came out clean"),
            );
        }
    }
    assert!(
        misses.is_empty(),
        "guard on real rewrites misses its targets:\n{}",
        misses.join("\n")
    );
}
