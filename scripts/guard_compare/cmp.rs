//! Layer 1+2 guard (a9dc33f) against the layer-3 guard, alternating, same process:
//! the bench of `scripts/guard_compare.sh` (copied into its scratch crate, not built here).
use std::path::PathBuf;
use std::time::Instant;
use guardcmp::{new_guard, old_guard};

fn rewrite(text: &str) -> String {
    text.split("\n\n").enumerate().filter(|(i, _)| i % 4 != 3).map(|(_, p)| p)
        .collect::<Vec<_>>().join("\n\n")
}
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let f: Vec<&str> = stat.rsplit_once(')').unwrap().1.split_whitespace().collect();
    (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) / 100.0
}
/// One timed run of `pairs` through one guard, repeated until `min_cpu` CPU seconds.
fn run(new: bool, pairs: &[(String, String)], min_cpu: f64) -> (f64, f64, usize) {
    let bytes: usize = pairs.iter().map(|(a, b)| a.len() + b.len()).sum();
    let c0 = cpu_seconds(); let w0 = Instant::now();
    let mut rounds = 0; let mut n = 0;
    while rounds < 1 || cpu_seconds() - c0 < min_cpu {
        n = pairs.iter().map(|(a, b)| if new { new_guard::check(a, b).dropped.len() } else { old_guard::check(a, b).dropped.len() }).sum();
        rounds += 1;
    }
    let cpu = cpu_seconds() - c0; let wall = w0.elapsed().as_secs_f64();
    let mb = (bytes * rounds) as f64 / 1e6;
    (mb / cpu, mb / wall, n)
}
fn main() {
    if let Ok(spec) = std::env::var("GUARD_BENCH_PAIR") {
        let (a, b) = spec.split_once(',').unwrap();
        let (o, p) = (std::fs::read_to_string(a).unwrap(), std::fs::read_to_string(b).unwrap());
        let t = Instant::now();
        let s = if std::env::var("GUARD_OLD").is_ok() { old_guard::check(&o, &p).summary() } else { new_guard::check(&o, &p).summary() };
        println!("{:.2} s: {s}", t.elapsed().as_secs_f64());
        return;
    }
    let dir = std::env::args().skip(1).find(|a| !a.starts_with('-')).map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/corpus/briefs"));
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md")).collect();
    paths.sort();
    let texts: Vec<String> = paths.iter().filter_map(|p| std::fs::read_to_string(p).ok()).collect();
    let all = texts.join("\n\n");
    let rep = |n: usize| vec![all.clone(); n].join("\n\n");
    let rows: Vec<(&str, Vec<(String, String)>, f64)> = vec![
        ("corpus, brief by brief", texts.iter().map(|t| (t.clone(), rewrite(t))).collect(), 2.0),
        ("corpus, each against itself", texts.iter().map(|t| (t.clone(), t.clone())).collect(), 2.0),
        ("corpus, each against a whitespace-only variant", texts.iter().map(|t| (t.clone(), t.replace(". ", ".  "))).collect(), 2.0),
        ("corpus x1, one text", vec![(all.clone(), rewrite(&all))], 2.0),
        ("corpus x10, one text", vec![(rep(10), rewrite(&rep(10)))], 3.0),
        ("corpus x100, one text", vec![(rep(100), rewrite(&rep(100)))], 3.0),
    ];
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(3);
    println!("corpus: {} ({} briefs, {:.2} MB)", dir.display(), texts.len(), all.len() as f64 / 1e6);
    for (name, pairs, min) in &rows {
        if std::env::var("ONLY").is_ok_and(|o| !name.contains(&o)) { continue; }
        let mb: f64 = pairs.iter().map(|(a, b)| (a.len() + b.len()) as f64).sum::<f64>() / 1e6;
        let (mut old, mut new) = (vec![], vec![]);
        let (mut nold, mut nnew) = (0, 0);
        for _ in 0..rounds {
            let o = run(false, pairs, *min); nold = o.2; old.push(o.0);
            let n = run(true, pairs, *min); nnew = n.2; new.push(n.0);
        }
        let med = |v: &mut Vec<f64>| { v.sort_by(|a, b| a.partial_cmp(b).unwrap()); v[v.len() / 2] };
        let (mo, mn) = (med(&mut old), med(&mut new));
        println!("{name:<48} {mb:>8.2} MB  layer1+2 {mo:>7.2} MB/s cpu  layer3 {mn:>7.2} MB/s cpu  old/new {:.2}x  (dropped {nold} / {nnew})  rounds old {:?} new {:?}",
            mo / mn, old.iter().map(|x| (x * 100.0).round() / 100.0).collect::<Vec<_>>(), new.iter().map(|x| (x * 100.0).round() / 100.0).collect::<Vec<_>>());
    }
}
