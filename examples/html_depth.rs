//! BENCHMARKS.md, "HTML to text": deeply nested pages through `html2text` alone and through
//! `briefkit::session::subagent::html::to_text` (the balancing pass first), in one run.
//! `cargo run --release --example html_depth [-- --brief-only]` (`--brief-only`: without
//! the quadratic `html2text`-alone column, which takes minutes).

use std::time::Instant;

fn nested(open: &str, close: &str, depth: usize) -> String {
    format!(
        "<html><body>{}deep{}</body></html>",
        open.repeat(depth),
        close.repeat(depth)
    )
}

fn main() {
    let brief_only = std::env::args().any(|a| a == "--brief-only");
    let shapes = [
        ("div", "<div>", "</div>"),
        ("blockquote", "<blockquote>", "</blockquote>"),
        ("ul/li", "<ul><li>", "</li></ul>"),
    ];
    println!("| page | depth | bytes | html2text alone s | brief s |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for (name, open, close) in shapes {
        for depth in [2_500, 5_000, 10_000, 100_000, 190_000] {
            let page = nested(open, close, depth);
            // html2text alone only where it ends in a few minutes (it is quadratic).
            let alone = (depth <= 10_000 && !brief_only).then(|| {
                let started = Instant::now();
                let _ = html2text::from_read(page.as_bytes(), 100);
                started.elapsed().as_secs_f64()
            });
            let started = Instant::now();
            let text = briefkit::session::subagent::html::to_text(page.as_bytes())
                .expect("a test page converts");
            let ours = started.elapsed().as_secs_f64();
            assert!(text.contains("deep"));
            println!(
                "| {name} | {depth} | {} | {} | {ours:.3} |",
                page.len(),
                alone.map_or("—".into(), |s| format!("{s:.3}"))
            );
        }
    }
}
