//! Guard throughput: `cargo bench --bench guard [-- CORPUS_DIR]`.
//!
//! Checks every brief of a corpus against a rewrite of itself (every fourth paragraph
//! dropped), then the whole corpus repeated 10× and 100× as one text, then inputs built to
//! provoke backtracking. Throughput counts the bytes of both texts. Linear time shows as
//! MB/s that does not fall as the input grows.
//!
//! The corpus directory comes from the first argument, then `BRIEF_BENCH_CORPUS`, then
//! `../shared/corpus/briefs` beside the crate; without one the bench says so and stops.
//! `GUARD_BENCH_ONLY=TEXT` runs only the rows whose name contains TEXT. Also rows of each
//! brief against a whitespace-only variant (every `. ` widened to `.  `: every sentence is
//! read, aligned and matched, nothing may flag).
//!
//! `GUARD_BENCH_PAIR=ORIGINAL,PROPOSAL` checks those two files once instead and prints the
//! time and findings: run it under `/usr/bin/time -f %M` for the peak memory of one check
//! (the `brief guard` command refuses texts over its input limit; the library does not).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use briefkit::guard;

fn corpus_dir() -> PathBuf {
    std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("BRIEF_BENCH_CORPUS").map(PathBuf::from))
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/briefs")
        })
}

/// A plausible lossy rewrite: every fourth paragraph gone.
fn rewrite(text: &str) -> String {
    text.split("\n\n")
        .enumerate()
        .filter(|(i, _)| i % 4 != 3)
        .map(|(_, p)| p)
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// CPU time this process has used (user + system), from `/proc/self/stat` in clock
/// ticks of 10 ms; `None` off Linux. On a shared machine wall time measures the other
/// tenants as much as the guard, so both are reported.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Runs `pairs` through the guard repeatedly for at least `min` (and three rounds) and
/// returns MB/s by wall clock over the best round, MB/s by CPU time over all rounds, and
/// the dropped count of one round (so the work is not optimised away).
fn measure(pairs: &[(String, String)], min: Duration) -> (f64, Option<f64>, usize) {
    let bytes: usize = pairs.iter().map(|(a, b)| a.len() + b.len()).sum();
    let started = Instant::now();
    let cpu_started = cpu_seconds();
    let mut best = Duration::MAX;
    let mut dropped = 0;
    let mut rounds = 0;
    while rounds < 3 || started.elapsed() < min {
        let t = Instant::now();
        dropped = pairs
            .iter()
            .map(|(a, b)| guard::check(a, b).dropped.len())
            .sum();
        best = best.min(t.elapsed());
        rounds += 1;
    }
    let cpu = cpu_started
        .zip(cpu_seconds())
        .map(|(a, b)| b - a)
        .filter(|spent| *spent >= 0.1)
        .map(|spent| (bytes * rounds) as f64 / 1e6 / spent);
    (bytes as f64 / 1e6 / best.as_secs_f64(), cpu, dropped)
}

fn row(name: &str, pairs: &[(String, String)], min: Duration) {
    // `GUARD_BENCH_ONLY=adversarial` runs only the rows whose name contains it.
    if std::env::var("GUARD_BENCH_ONLY").is_ok_and(|only| !name.contains(&only)) {
        return;
    }
    let bytes: usize = pairs.iter().map(|(a, b)| a.len() + b.len()).sum();
    let (wall, cpu, dropped) = measure(pairs, min);
    let cpu = cpu.map_or("-".to_string(), |cpu| format!("{cpu:.1}"));
    println!(
        "{name:<34} {:>8.2} MB {wall:>8.1} MB/s wall {cpu:>8} MB/s cpu  ({dropped} dropped)",
        bytes as f64 / 1e6,
    );
}

/// One check of two files (`GUARD_BENCH_PAIR=ORIGINAL,PROPOSAL`), for measuring memory.
fn pair(spec: &str) {
    let Some((a, b)) = spec.split_once(',') else {
        println!("GUARD_BENCH_PAIR takes ORIGINAL,PROPOSAL");
        return;
    };
    let (Ok(original), Ok(proposal)) = (std::fs::read_to_string(a), std::fs::read_to_string(b))
    else {
        println!("guard bench: cannot read {a} or {b}");
        return;
    };
    let started = Instant::now();
    let report = guard::check(&original, &proposal);
    let took = started.elapsed();
    println!(
        "{:.2} MB in {:.2} s: {}",
        (original.len() + proposal.len()) as f64 / 1e6,
        took.as_secs_f64(),
        report.summary()
    );
}

fn main() {
    if let Ok(spec) = std::env::var("GUARD_BENCH_PAIR") {
        pair(&spec);
        return;
    }
    let dir = corpus_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!(
            "guard bench: no corpus at {} (pass a directory of .md briefs, or set BRIEF_BENCH_CORPUS); skipped",
            dir.display()
        );
        return;
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    paths.sort();
    let texts: Vec<String> = paths
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    if texts.is_empty() {
        println!("guard bench: no .md files in {}; skipped", dir.display());
        return;
    }
    println!("corpus: {} ({} briefs)", dir.display(), texts.len());
    let second = Duration::from_secs(1);

    let per_brief: Vec<(String, String)> = texts.iter().map(|t| (t.clone(), rewrite(t))).collect();
    row("corpus, brief by brief", &per_brief, second);
    let same: Vec<(String, String)> = texts.iter().map(|t| (t.clone(), t.clone())).collect();
    row("corpus, each against itself", &same, second);
    let spaced: Vec<(String, String)> = texts
        .iter()
        .map(|t| (t.clone(), t.replace(". ", ".  ")))
        .collect();
    row("corpus, each against a whitespace variant", &spaced, second);

    let whole = texts.join("\n\n");
    for times in [1, 10, 100] {
        let big = vec![whole.as_str(); times].join("\n\n");
        let pair = vec![(big.clone(), rewrite(&big))];
        row(&format!("corpus ×{times} as one text"), &pair, second);
    }

    // Inputs made of nothing but the characters the passes key on, at two sizes: time
    // that grew faster than the input would show as MB/s falling from the first to the
    // second.
    for scale in [1, 8] {
        let n = scale << 20;
        let adversarial = [
            ("backticks", "`".repeat(n)),
            ("backtick runs", "`` a ` ".repeat(n / 7)),
            ("open braces", "{{ {% ${".repeat(n / 8)),
            ("dollar digits", "$1,2-$3 USD 4-".repeat(n / 14)),
            ("url brackets", "https://x.io/((((".repeat(n / 17)),
            ("dotted digits", "1.2.3.4.5.6.7.8.9.".repeat(n / 18)),
            ("digit commas", "1,234,567,8".repeat(n / 11)),
            ("at signs", "a.b@c.d@".repeat(n / 8)),
            ("nested brackets", "[".repeat(n / 2) + &"]".repeat(n / 2)),
            ("list markers", "1. 2) ## 3. \n".repeat(n / 13)),
            ("fences", "```\n~~~~\n".repeat(n / 9)),
            ("one long line of a", "a".repeat(n)),
        ];
        for (name, text) in adversarial {
            // Against a proposal that keeps half of it, so the lookups run too.
            let half = text[..text.len() / 2].to_string();
            let pair = vec![(text, half)];
            row(
                &format!("adversarial {scale} MiB: {name}"),
                &pair,
                Duration::ZERO,
            );
        }
    }
}
