//! The two charts, drawn on the server as plain shapes: input per call (cached, written and
//! the rest, stacked) and the cached share per call, with every drift marked.
//!
//! Shapes rather than a charting library: two small charts need a few dozen lines of layout,
//! and shapes are both serialised into the page as SVG (a report that opens from disk, a
//! page read with scripts off) and sent as JSON for the live page's script to repaint with
//! `createElementNS` — no library to embed, audit or keep up to date, nothing that parses
//! markup in the browser.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::numbers::thousands;

/// One bar of a chart: one call, or (in a long report) a run of consecutive calls.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Point {
    /// What the point covers: `call 12`, `calls 120–180`.
    pub label: String,
    pub calls: u64,
    pub input_tokens: u64,
    pub cached_input_tokens: u64,
    /// Input of the calls that reported a cached-token field: the share's denominator.
    pub input_reporting: u64,
    pub cache_write_tokens: u64,
    /// Calls that drifted, and the parts that did (each named once).
    pub drifted: u64,
    pub drifted_parts: Vec<String>,
}

impl Point {
    pub fn share(&self) -> Option<f64> {
        (self.input_reporting > 0)
            .then(|| (self.cached_input_tokens as f64 / self.input_reporting as f64).min(1.0))
    }

    /// Adds a later point (or call) to this one.
    pub fn absorb(&mut self, other: &Point) {
        let add = |a: &mut u64, b: u64| *a = a.saturating_add(b);
        add(&mut self.calls, other.calls);
        add(&mut self.input_tokens, other.input_tokens);
        add(&mut self.cached_input_tokens, other.cached_input_tokens);
        add(&mut self.input_reporting, other.input_reporting);
        add(&mut self.cache_write_tokens, other.cache_write_tokens);
        add(&mut self.drifted, other.drifted);
        for part in &other.drifted_parts {
            if !self.drifted_parts.contains(part) {
                self.drifted_parts.push(part.clone());
            }
        }
    }
}

/// One SVG element: its tag, class, numeric attributes, and its text or tooltip.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Shape {
    pub tag: &'static str,
    pub class: &'static str,
    pub attrs: BTreeMap<&'static str, String>,
    /// The text of a `text` element.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A tooltip (an SVG `title` inside the element).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Legend {
    pub class: &'static str,
    pub label: &'static str,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Chart {
    pub id: String,
    pub title: String,
    pub width: u32,
    pub height: u32,
    pub shapes: Vec<Shape>,
    pub legend: Vec<Legend>,
    /// Shown instead of the chart when there is nothing to draw.
    pub empty: String,
}

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 190.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 8.0;
const TOP: f64 = 10.0;
const BOTTOM: f64 = 22.0;

fn px(value: f64) -> String {
    format!("{value:.1}")
}

fn shape(tag: &'static str, class: &'static str, attrs: &[(&'static str, f64)]) -> Shape {
    Shape {
        tag,
        class,
        attrs: attrs.iter().map(|(k, v)| (*k, px(*v))).collect(),
        text: None,
        title: None,
    }
}

fn label(x: f64, y: f64, anchor: &'static str, text: String) -> Shape {
    let mut s = shape("text", "axis", &[("x", x), ("y", y)]);
    s.attrs.insert("text-anchor", anchor.to_string());
    s.text = Some(text);
    s
}

/// The smallest 1, 2 or 5 times a power of ten at or above `value` (at least 1).
fn nice(value: u64) -> u64 {
    let mut step = 1u64;
    loop {
        for m in [1, 2, 5] {
            let top = step.saturating_mul(m);
            if top >= value || top == u64::MAX {
                return top;
            }
        }
        step = step.saturating_mul(10);
    }
}

/// Horizontal grid lines with their labels, and the first and last point's label under
/// the plot.
fn frame(shapes: &mut Vec<Shape>, ticks: &[(f64, String)], points: &[Point]) {
    let plot_h = HEIGHT - TOP - BOTTOM;
    for (at, text) in ticks {
        let y = TOP + plot_h * (1.0 - at);
        shapes.push(shape(
            "line",
            "grid",
            &[("x1", LEFT), ("x2", WIDTH - RIGHT), ("y1", y), ("y2", y)],
        ));
        shapes.push(label(LEFT - 6.0, y + 4.0, "end", text.clone()));
    }
    if let (Some(first), Some(last)) = (points.first(), points.last()) {
        shapes.push(label(LEFT, HEIGHT - 6.0, "start", first.label.clone()));
        if points.len() > 1 {
            shapes.push(label(
                WIDTH - RIGHT,
                HEIGHT - 6.0,
                "end",
                last.label.clone(),
            ));
        }
    }
}

fn slot(points: usize) -> f64 {
    (WIDTH - LEFT - RIGHT) / points.max(1) as f64
}

fn tooltip(p: &Point) -> String {
    let mut text = format!(
        "{}: {} in, {} cached ({}), {} written",
        p.label,
        thousands(p.input_tokens),
        thousands(p.cached_input_tokens),
        super::share(p.share()),
        thousands(p.cache_write_tokens)
    );
    if p.drifted > 0 {
        text.push_str(&format!("; drift: {}", p.drifted_parts.join(", ")));
    }
    text
}

fn chart(id: &str, title: &str, shapes: Vec<Shape>, legend: Vec<Legend>) -> Chart {
    Chart {
        id: id.into(),
        title: title.into(),
        width: WIDTH as u32,
        height: HEIGHT as u32,
        shapes,
        legend,
        empty: "No calls yet.".into(),
    }
}

/// Rectangles of one class drawn as one path (`M x y h w v h h -w z` each): a few bytes a
/// bar, however many bars.
#[derive(Default)]
struct Bars(String);

impl Bars {
    fn add(&mut self, x: f64, y: f64, width: f64, height: f64) {
        if height > 0.0 {
            self.0.push_str(&format!(
                "M{} {}h{}v{}h-{}z",
                px(x),
                px(y),
                px(width),
                px(height),
                px(width)
            ));
        }
    }

    fn shape(self, class: &'static str) -> Option<Shape> {
        (!self.0.is_empty()).then(|| {
            let mut path = shape("path", class, &[]);
            path.attrs.insert("d", self.0);
            path
        })
    }
}

/// Input per point, stacked: read from the cache, written to it, and the rest; a drifted
/// point has a red cap. Each bar's figures are its tooltip.
pub fn input(points: &[Point]) -> Chart {
    let mut shapes = Vec::new();
    let legend = vec![
        Legend {
            class: "cached",
            label: "read from cache",
        },
        Legend {
            class: "write",
            label: "written to cache",
        },
        Legend {
            class: "plain",
            label: "other input",
        },
        Legend {
            class: "drift",
            label: "drift",
        },
    ];
    if points.is_empty() {
        return chart("input", "Input tokens per call", shapes, legend);
    }
    let top = nice(points.iter().map(|p| p.input_tokens).max().unwrap_or(1));
    let ticks = [
        (0.0, "0".to_string()),
        (0.5, thousands(top / 2)),
        (1.0, thousands(top)),
    ];
    frame(&mut shapes, &ticks, points);
    let plot_h = HEIGHT - TOP - BOTTOM;
    let step = slot(points.len());
    let width = if step > 3.0 { step - 1.0 } else { step };
    let scale = |tokens: u64| plot_h * (tokens as f64 / top as f64);
    let (mut cached_bars, mut write_bars, mut plain_bars, mut drift_bars) = (
        Bars::default(),
        Bars::default(),
        Bars::default(),
        Bars::default(),
    );
    let mut hits = Vec::with_capacity(points.len());
    for (i, p) in points.iter().enumerate() {
        let x = LEFT + step * i as f64;
        let cached = p.cached_input_tokens.min(p.input_tokens);
        let written = p.cache_write_tokens.min(p.input_tokens - cached);
        let rest = p.input_tokens - cached - written;
        let mut base = TOP + plot_h;
        for (tokens, bars) in [
            (cached, &mut cached_bars),
            (written, &mut write_bars),
            (rest, &mut plain_bars),
        ] {
            let h = scale(tokens);
            base -= h;
            bars.add(x, base, width, h);
        }
        if p.drifted > 0 {
            drift_bars.add(x, TOP, width.max(2.0), 4.0);
        }
        // A full-height target carries the tooltip, so a thin bar is easy to point at.
        let mut hit = shape(
            "rect",
            "hit",
            &[("x", x), ("y", TOP), ("width", step), ("height", plot_h)],
        );
        hit.title = Some(tooltip(p));
        hits.push(hit);
    }
    for (bars, class) in [
        (cached_bars, "cached"),
        (write_bars, "write"),
        (plain_bars, "plain"),
        (drift_bars, "drift"),
    ] {
        shapes.extend(bars.shape(class));
    }
    shapes.extend(hits);
    chart("input", "Input tokens per call", shapes, legend)
}

/// Points drawn as dots, at most this many (past it the line alone).
const MAX_DOTS: usize = 64;

/// The cached share per point as a line (broken where a call reported no cached field),
/// with a red rule at every drift. The figures of each point are the input chart's
/// tooltips.
pub fn share(points: &[Point]) -> Chart {
    let mut shapes = Vec::new();
    let legend = vec![
        Legend {
            class: "line",
            label: "cached share of input",
        },
        Legend {
            class: "drift",
            label: "drift",
        },
    ];
    if points.is_empty() {
        return chart("share", "Cached share per call", shapes, legend);
    }
    let ticks = [
        (0.0, "0%".to_string()),
        (0.5, "50%".to_string()),
        (1.0, "100%".to_string()),
    ];
    frame(&mut shapes, &ticks, points);
    let plot_h = HEIGHT - TOP - BOTTOM;
    let step = slot(points.len());
    let mut run: Vec<String> = Vec::new();
    let flush = |run: &mut Vec<String>, shapes: &mut Vec<Shape>| {
        if run.len() > 1 {
            let mut line = shape("polyline", "line", &[]);
            line.attrs.insert("points", run.join(" "));
            shapes.push(line);
        }
        run.clear();
    };
    let mut rules = String::new();
    let mut dots = Vec::new();
    for (i, p) in points.iter().enumerate() {
        let x = LEFT + step * (i as f64 + 0.5);
        if p.drifted > 0 {
            rules.push_str(&format!("M{} {}v{}", px(x), px(TOP), px(plot_h)));
        }
        match p.share() {
            Some(s) => {
                let y = TOP + plot_h * (1.0 - s);
                run.push(format!("{},{}", px(x), px(y)));
                if points.len() <= MAX_DOTS {
                    let mut dot = shape("circle", "dot", &[("cx", x), ("cy", y), ("r", 2.5)]);
                    dot.title = Some(tooltip(p));
                    dots.push(dot);
                }
            }
            None => flush(&mut run, &mut shapes),
        }
    }
    flush(&mut run, &mut shapes);
    if !rules.is_empty() {
        let mut path = shape("path", "drift", &[]);
        path.attrs.insert("d", rules);
        shapes.push(path);
    }
    shapes.extend(dots);
    chart("share", "Cached share per call", shapes, legend)
}

#[cfg(test)]
mod tests;
