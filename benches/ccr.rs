//! CCR store and digest figures: `cargo bench --bench ccr [-- ENTRIES]`.
//!
//! 1. The store: `ENTRIES` puts (default 100,000) into a new store through the public API,
//!    then random gets of live hashes, gets of unknown hashes, `stats` and `gc`, each get
//!    timed on its own (p50, p99, max).
//! 2. A 10 MB tool output (build-log lines with diagnostics sprinkled in) through
//!    `digest::render` and `Digest::back`.
//! 3. The JSON crusher on generated arrays; the same arrays are written to
//!    `target/ccr-bench/arrays/` so `benches/smartcrusher_compare.py` can run headroom's
//!    SmartCrusher on exactly the same bytes.
//!
//! `CCR_BENCH_ONLY=store|digest|crush` runs one part.

// A benchmark that fails should stop at once and say where.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use briefkit::ccr::digest::{self, DigestFile, Options};
use briefkit::ccr::{self, Lookup, Store, Strategy};
use serde_json::{Value, json};

/// A deterministic pseudo-random sequence (64-bit LCG, high bits).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

fn show(label: &str, mut times: Vec<Duration>) {
    times.sort();
    let total: Duration = times.iter().sum();
    println!(
        "{label:<34} n={:<7} mean {:>9.1?}  p50 {:>9.1?}  p99 {:>9.1?}  max {:>9.1?}",
        times.len(),
        total / times.len() as u32,
        percentile(&times, 0.50),
        percentile(&times, 0.99),
        times[times.len() - 1]
    );
}

/// An original of about 600 bytes, like a small tool output.
fn original(i: usize) -> String {
    format!(
        "$ run step {i}\n{}exit status {}\n",
        format!("output line of step {i}: processed records without trouble\n").repeat(8),
        i % 3
    )
}

fn bench_store(entries: usize) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ccr.sqlite");
    let store = Store::open(&path).unwrap();
    let strategies = Strategy::ALL;
    let mut puts = Vec::with_capacity(entries);
    let started = Instant::now();
    for i in 0..entries {
        let text = original(i);
        let t = Instant::now();
        store
            .put(
                text.as_bytes(),
                "step summary",
                strategies[i % strategies.len()],
                "bench",
                None,
            )
            .unwrap();
        puts.push(t.elapsed());
    }
    println!("fill: {entries} puts in {:.1?}", started.elapsed());
    let tail = puts[puts.len() - puts.len() / 10..].to_vec();
    show("put (all)", puts);
    show("put (last 10%, store nearly full)", tail);
    let mut rng = Lcg(42);
    let hashes: Vec<String> = (0..20_000)
        .map(|_| ccr::hash(original(rng.below(entries as u64) as usize).as_bytes()))
        .collect();
    let mut gets = Vec::with_capacity(hashes.len());
    for hash in &hashes {
        let query = ccr::parse_hash(hash).unwrap();
        let t = Instant::now();
        let found = store.get(&query).unwrap();
        gets.push(t.elapsed());
        assert!(matches!(found, Lookup::Found(_)));
    }
    show("get (live, random)", gets);
    let mut misses = Vec::new();
    for i in 0..5_000 {
        let query = ccr::parse_hash(&ccr::hash(format!("never stored {i}").as_bytes())).unwrap();
        let t = Instant::now();
        assert_eq!(store.get(&query).unwrap(), Lookup::Unknown);
        misses.push(t.elapsed());
    }
    show("get (unknown)", misses);
    drop(store);
    let t = Instant::now();
    let store = Store::open(&path).unwrap();
    let reopen = t.elapsed();
    let mut cold = Vec::new();
    for hash in hashes.iter().take(2_000) {
        let query = ccr::parse_hash(hash).unwrap();
        let t = Instant::now();
        store.get(&query).unwrap();
        cold.push(t.elapsed());
    }
    println!("open existing store: {reopen:.1?}");
    show("get (after reopen)", cold);
    let t = Instant::now();
    let stats = store.stats().unwrap();
    println!(
        "stats: {:.1?} ({} live, file {} MB)",
        t.elapsed(),
        stats.total.live,
        stats.file_bytes / 1_000_000
    );
    let t = Instant::now();
    let swept = store.gc().unwrap();
    println!(
        "gc (nothing expired): {:.1?} ({} collected)",
        t.elapsed(),
        swept.collected
    );
}

/// About `bytes` of build-log lines, with an error or warning every ~2,000 lines.
fn build_log(bytes: usize) -> String {
    let mut rng = Lcg(7);
    let mut out = String::with_capacity(bytes + 200);
    let mut i = 0;
    while out.len() < bytes {
        match rng.below(2_000) {
            0 => out.push_str(&format!(
                "error[E0{}]: mismatched types in src/module_{i}.rs:{}\n",
                300 + rng.below(99),
                rng.below(900)
            )),
            1 => out.push_str(&format!(
                "warning: unused variable `v{i}` in src/module_{i}.rs\n"
            )),
            _ => out.push_str(&format!(
                "   Compiling package_{i} v0.{}.{} (/build/src/package_{i})\n",
                rng.below(20),
                rng.below(40)
            )),
        }
        i += 1;
    }
    out
}

fn bench_digest() {
    let log = build_log(10 * 1024 * 1024);
    let yaml = serde_yaml::to_string(&json!({"current_task": "Fix the build.", "tool_outputs": [{"name": "cargo build", "content": log}]})).unwrap();
    let t = Instant::now();
    let file = DigestFile::parse(&yaml, std::path::Path::new("bench.yaml")).unwrap();
    let parse = t.elapsed();
    let t = Instant::now();
    let rendered = digest::render(&file, &Options::default());
    let render = t.elapsed();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("ccr.sqlite")).unwrap();
    let t = Instant::now();
    rendered.back(&store).unwrap();
    let back = t.elapsed();
    let s = &rendered.sections[1];
    println!(
        "10 MB tool output: {} lines; parse {parse:.1?}, render {render:.1?} (incl. token counts), store {back:.1?}",
        log.lines().count()
    );
    println!("  {}", rendered.text.lines().last().unwrap_or_default());
    println!(
        "  bytes {} -> {} ({:.3}%), tokens {} -> {}; {}",
        s.bytes_before,
        s.bytes_after,
        100.0 * s.bytes_after as f64 / s.bytes_before as f64,
        s.tokens_before,
        s.tokens_after,
        rendered.summary()
    );
}

fn arrays() -> Vec<(&'static str, Value)> {
    let mut rng = Lcg(2026);
    let endpoints = ["/v1/chat", "/v1/embed", "/v1/retrieve", "/v1/files"];
    let logs: Vec<Value> = (0..1000)
        .map(|i| {
            let status = [200, 200, 200, 200, 201, 429, 500][rng.below(7) as usize];
            let mut row = json!({"id": i, "ts": format!("2026-11-30T{:02}:{:02}:{:02}Z", i / 3600 % 24, i / 60 % 60, i % 60), "endpoint": endpoints[rng.below(4) as usize], "status": status, "latency_ms": rng.below(90_000) as f64 / 100.0, "user": format!("u{}", rng.below(50))});
            if status >= 500 {
                row["error"] = json!("upstream timeout");
            }
            row
        })
        .collect();
    let search: Vec<Value> = (0..200)
        .map(|i| json!({"path": format!("src/module_{}/file_{}.rs", rng.below(30), rng.below(100)), "line": rng.below(2000), "score": rng.below(1000) as f64 / 1000.0, "snippet": format!("fn handler_{i}(request: &Request) -> Result<Response> {{ retry(request, {}) }}", rng.below(9))}))
        .collect();
    let metrics: Vec<Value> = (0..5000)
        .map(|t| json!({"t": 1_796_000_000 + t * 15, "cpu": 20.0 + rng.below(600) as f64 / 10.0, "mem_mb": 1024 + rng.below(512)}))
        .collect();
    let ids: Vec<Value> = (0..10_000).map(|_| json!(rng.below(1_000_000))).collect();
    let nested: Vec<Value> = (0..300)
        .map(|i| {
            let tier = ["free", "pro", "team"][rng.below(3) as usize];
            json!({"order": i, "customer": {"id": rng.below(80), "tier": tier}, "lines": (0..1 + rng.below(4)).map(|k| json!({"sku": format!("SKU-{}", rng.below(40)), "qty": 1 + k})).collect::<Vec<_>>(), "total": rng.below(50_000) as f64 / 100.0})
        })
        .collect();
    vec![
        ("api_logs_1000", Value::Array(logs)),
        ("search_hits_200", Value::Array(search)),
        ("metrics_5000", Value::Array(metrics)),
        ("ids_10000", Value::Array(ids)),
        ("orders_nested_300", Value::Array(nested)),
    ]
}

fn bench_crush() {
    let out_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/ccr-bench/arrays");
    std::fs::create_dir_all(&out_dir).unwrap();
    println!(
        "{:<20} {:>10} {:>10} {:>8} {:>10}",
        "array", "bytes", "crushed", "ratio", "time"
    );
    for (name, value) in arrays() {
        let text = serde_json::to_string(&value).unwrap();
        std::fs::write(out_dir.join(format!("{name}.json")), &text).unwrap();
        let Value::Array(items) = serde_json::from_str::<Value>(&text).unwrap() else {
            unreachable!()
        };
        let mut best = Duration::MAX;
        let mut crushed = None;
        for _ in 0..20 {
            let t = Instant::now();
            let parsed: Value = serde_json::from_str(&text).unwrap();
            let Value::Array(parsed) = parsed else {
                unreachable!()
            };
            let c = digest::crush::crush(&parsed);
            best = best.min(t.elapsed());
            crushed = Some(c);
        }
        let crushed = crushed.unwrap();
        std::fs::write(out_dir.join(format!("{name}.crushed.txt")), &crushed.text).unwrap();
        assert_eq!(crushed.items, items.len());
        println!(
            "{name:<20} {:>10} {:>10} {:>7.1}% {:>10.2?}",
            text.len(),
            crushed.text.len(),
            100.0 * crushed.text.len() as f64 / text.len() as f64,
            best
        );
    }
    println!("arrays written to {}", out_dir.display());
}

fn main() {
    let entries = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(100_000);
    let only = std::env::var("CCR_BENCH_ONLY").unwrap_or_default();
    if only.is_empty() || only == "store" {
        bench_store(entries);
    }
    if only.is_empty() || only == "digest" {
        bench_digest();
    }
    if only.is_empty() || only == "crush" {
        bench_crush();
    }
}
