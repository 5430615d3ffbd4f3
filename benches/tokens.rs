//! Times the tokenizer: first-use vocabulary load and counting throughput for both encodings,
//! plus the error of the vocabulary-free estimate, so the figures in BENCHMARKS.md can be
//! re-measured on any machine: `cargo bench --bench tokens -- [FILE|DIR]`.
//!
//! The input is the argument, else `BRIEF_CORPUS`, else `../shared/corpus/briefs`; for a
//! directory the largest file is timed and the estimate is checked on every file.
//! `benches/tiktoken_compare.py` counts the same text with Python tiktoken.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use briefkit::tokens::{self, Encoding};

const PASSES: usize = 20;

fn main() {
    if let Err(err) = run()
        && err.kind() != io::ErrorKind::BrokenPipe
    {
        eprintln!("tokens bench: {err}");
        std::process::exit(1);
    }
}

fn run() -> io::Result<()> {
    let target = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .or_else(|| std::env::var("BRIEF_CORPUS").ok())
        .unwrap_or_else(|| "../shared/corpus/briefs".to_owned());
    let target = PathBuf::from(target);
    if !target.exists() {
        println!("tokens bench: {} not found, skipped", target.display());
        return Ok(());
    }
    let files = text_files(&target)?;
    let Some(largest) = files.iter().max_by_key(|(_, t)| t.len()) else {
        println!(
            "tokens bench: no text files in {}, skipped",
            target.display()
        );
        return Ok(());
    };
    let mut out = io::stdout().lock();
    let (path, text) = largest;
    writeln!(out, "file: {} ({} bytes)", path.display(), text.len())?;
    for &encoding in Encoding::ALL {
        let start = Instant::now();
        tokens::count(encoding, "x");
        let init = start.elapsed();
        let first = tokens::count(encoding, text);
        let mut best = f64::MAX;
        for _ in 0..PASSES {
            let start = Instant::now();
            let n = tokens::count(encoding, text);
            best = best.min(start.elapsed().as_secs_f64());
            assert_eq!(n, first, "counting is deterministic");
        }
        writeln!(
            out,
            "{encoding}: tokens={first} init={:.1} ms count_best_of_{PASSES}={:.2} ms throughput={:.1} MB/s",
            init.as_secs_f64() * 1e3,
            best * 1e3,
            text.len() as f64 / 1e6 / best,
        )?;
    }
    let start = Instant::now();
    let estimate = tokens::estimate(text);
    let est_time = start.elapsed().as_secs_f64();
    writeln!(
        out,
        "estimate: tokens={estimate} time={:.3} ms throughput={:.0} MB/s",
        est_time * 1e3,
        text.len() as f64 / 1e6 / est_time
    )?;
    for &encoding in Encoding::ALL {
        let errors: Vec<f64> = files
            .iter()
            .filter(|(_, t)| !t.is_empty())
            .map(|(_, t)| {
                let exact = tokens::count(encoding, t) as f64;
                (tokens::estimate(t) as f64 - exact) / exact * 100.0
            })
            .collect();
        let min = errors.iter().copied().fold(f64::MAX, f64::min);
        let max = errors.iter().copied().fold(f64::MIN, f64::max);
        let mean = errors.iter().map(|e| e.abs()).sum::<f64>() / errors.len() as f64;
        writeln!(
            out,
            "estimate vs {encoding} over {} files: min {min:+.1}% max {max:+.1}% mean |error| {mean:.1}%",
            errors.len()
        )?;
    }
    Ok(())
}

/// The readable UTF-8 files of `path` (itself, or a directory's direct entries), sorted.
fn text_files(path: &Path) -> io::Result<Vec<(PathBuf, String)>> {
    let mut paths = if path.is_dir() {
        std::fs::read_dir(path)?
            .map(|e| e.map(|e| e.path()))
            .collect::<io::Result<Vec<_>>>()?
    } else {
        vec![path.to_path_buf()]
    };
    paths.sort();
    Ok(paths
        .into_iter()
        .filter(|p| p.is_file())
        .filter_map(|p| std::fs::read_to_string(&p).ok().map(|t| (p, t)))
        .collect())
}
