//! A [`View`] as one HTML page: served live by the proxy, or written to a file by
//! `brief usage --html`.
//!
//! Every string of the view is escaped here, text and attribute alike, so a model named
//! `<img src=x onerror=alert(1)>` is shown as those characters. The page never holds a
//! script of its own: the live page loads the proxy's one script (`script-src 'self'`, no
//! inline script, so nothing a client wrote can run even if it reached the markup), and a
//! file report has no script at all. Its stylesheet is inline, allowed by its hash in a
//! `<meta>` Content-Security-Policy — the only policy a page opened from disk can carry —
//! which also forbids every fetch: a report can request nothing, from anywhere.

use std::fmt::Write as _;

use base64::Engine as _;
use sha2::{Digest as _, Sha256};

use super::chart::Chart;
use super::{Kind, Table, View};

/// The stylesheet, shared by the live page (as a file) and reports (inline).
pub const STYLE: &str = include_str!("assets/style.css");

/// The live page's script: polls the view and repaints it.
pub const SCRIPT: &str = include_str!("assets/app.js");

/// The page's icon (so the browser does not ask for `/favicon.ico`).
pub const ICON: &str = include_str!("assets/icon.svg");

/// The policy of the live page and its assets: only the proxy's own stylesheet, script,
/// icon and view; no inline script or style, no frames, no forms, no other origin.
pub const LIVE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

/// How the page gets its stylesheet and whether it updates itself.
#[derive(Debug, Clone, Copy)]
pub enum Mode<'a> {
    /// Served by the proxy: stylesheet, script and icon under `assets`, the view as JSON at
    /// `source`, repainted every `every_ms`.
    Live {
        assets: &'a str,
        source: &'a str,
        every_ms: u64,
    },
    /// One file that opens from disk, with nothing to fetch.
    File,
}

/// The policy a file report carries in its `<meta>`: its inline stylesheet by hash, its
/// `data:` icon, nothing else.
pub fn file_csp() -> String {
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(STYLE));
    format!(
        "default-src 'none'; style-src 'sha256-{hash}'; img-src data:; base-uri 'none'; \
         form-action 'none'"
    )
}

// Why no template engine (maud, askama): every output byte of `brief usage --html` is kept,
// and maud would change them (no newlines between elements, quotes in text written as
// `&quot;`). Instead nothing reaches the markup but through the two functions below, text
// or attribute, in this one file; `page` is the only way in.

/// Text as HTML: `& < >` escaped (quotes are text between tags).
fn text(text: &str) -> String {
    escaped(text, false)
}

/// Text or an attribute value as HTML: `& < > " '` escaped.
pub fn escape(text: &str) -> String {
    escaped(text, true)
}

/// `& < >` escaped, and `" '` too when `quotes`.
fn escaped(text: &str, quotes: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if quotes => out.push_str("&quot;"),
            '\'' if quotes => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The whole page.
pub fn page(view: &View, mode: Mode, footer: &str) -> String {
    let mut out = String::with_capacity(64 * 1024);
    out.push_str("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    if let Mode::File = mode {
        let _ = writeln!(
            out,
            "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">",
            escape(&file_csp())
        );
    }
    out.push_str(
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n",
    );
    let _ = writeln!(out, "<title>{}</title>", text(&view.title));
    let body_attrs = match mode {
        Mode::Live {
            assets,
            source,
            every_ms,
        } => {
            let assets = escape(assets);
            let _ = writeln!(
                out,
                "<link rel=\"icon\" href=\"{assets}/icon.svg\" type=\"image/svg+xml\">\n\
                 <link rel=\"stylesheet\" href=\"{assets}/style.css\">\n\
                 <script src=\"{assets}/app.js\" defer></script>\n\
                 <noscript><meta http-equiv=\"refresh\" content=\"5\"></noscript>"
            );
            format!(
                " data-source=\"{}\" data-every=\"{every_ms}\"",
                escape(source)
            )
        }
        Mode::File => {
            let _ = writeln!(
                out,
                "<link rel=\"icon\" href=\"data:,\">\n<style>{STYLE}</style>"
            );
            String::new()
        }
    };
    let _ = writeln!(out, "</head>\n<body{body_attrs}>\n<header>");
    let _ = writeln!(out, "<h1 id=\"title\">{}</h1>", text(&view.title));
    let _ = writeln!(out, "<p id=\"subtitle\">{}</p>", text(&view.subtitle));
    let _ = writeln!(
        out,
        "<p id=\"summary\" class=\"summary\">{}</p>",
        text(&view.summary)
    );
    if let Mode::Live { every_ms, .. } = mode {
        let _ = writeln!(
            out,
            "<p id=\"status\" class=\"status\">live: updates every {} s</p>\n\
             <noscript><p class=\"status\">Scripts are off: this page reloads every 5 s.</p></noscript>",
            every_ms.div_ceil(1000)
        );
    }
    out.push_str("</header>\n<main id=\"main\">\n<section class=\"cards\" id=\"cards\">\n");
    for card in &view.cards {
        let id = escape(&card.id);
        let _ = writeln!(
            out,
            "<div class=\"card\" id=\"card-{id}\"><div class=\"label\">{}</div>\
             <div class=\"value\" id=\"card-{id}-value\">{}</div>\
             <div class=\"note\" id=\"card-{id}-note\">{}</div></div>",
            text(&card.label),
            text(&card.value),
            text(&card.note)
        );
    }
    out.push_str("</section>\n");
    for chart in &view.charts {
        render_chart(&mut out, chart);
    }
    for table in &view.tables {
        render_table(&mut out, table);
    }
    let _ = write!(
        out,
        "</main>\n<footer>{}</footer>\n</body>\n</html>\n",
        text(footer)
    );
    out
}

fn render_chart(out: &mut String, chart: &Chart) {
    let id = escape(&chart.id);
    let _ = writeln!(
        out,
        "<section class=\"chart\" id=\"chart-{id}\">\n<h2>{}</h2>",
        text(&chart.title)
    );
    let _ = write!(
        out,
        "<svg id=\"svg-{id}\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" \
         role=\"img\" aria-label=\"{}\">",
        chart.width,
        chart.height,
        escape(&chart.title)
    );
    for shape in &chart.shapes {
        let _ = write!(out, "<{} class=\"{}\"", shape.tag, escape(shape.class));
        for (name, value) in &shape.attrs {
            let _ = write!(out, " {name}=\"{}\"", escape(value));
        }
        out.push('>');
        if let Some(title) = &shape.title {
            let _ = write!(out, "<title>{}</title>", text(title));
        }
        if let Some(words) = &shape.text {
            out.push_str(&text(words));
        }
        let _ = write!(out, "</{}>", shape.tag);
    }
    out.push_str("</svg>\n");
    let hidden = if chart.shapes.is_empty() {
        ""
    } else {
        " hidden"
    };
    let _ = writeln!(
        out,
        "<p class=\"empty\" id=\"empty-{id}\"{hidden}>{}</p>",
        text(&chart.empty)
    );
    out.push_str("<ul class=\"legend\">");
    for item in &chart.legend {
        let _ = write!(
            out,
            "<li><span class=\"swatch {}\"></span>{}</li>",
            escape(item.class),
            text(item.label)
        );
    }
    out.push_str("</ul>\n</section>\n");
}

fn class(kind: Kind) -> &'static str {
    match kind {
        Kind::Text => "text",
        Kind::Number => "num",
        Kind::Code => "code",
    }
}

fn render_table(out: &mut String, table: &Table) {
    let id = escape(&table.id);
    let _ = writeln!(
        out,
        "<section class=\"table\" id=\"table-{id}\">\n<h2>{}</h2>\n<div class=\"scroll\">\
         <table id=\"t-{id}\">\n<thead><tr>",
        text(&table.title)
    );
    for column in &table.columns {
        let _ = write!(
            out,
            "<th class=\"{}\">{}</th>",
            class(column.kind),
            text(&column.label)
        );
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    if table.rows.is_empty() {
        let _ = writeln!(
            out,
            "<tr class=\"empty\"><td colspan=\"{}\">{}</td></tr>",
            table.columns.len().max(1),
            text(&table.empty)
        );
    }
    for row in &table.rows {
        out.push_str("<tr>");
        for (cell, column) in row.iter().zip(&table.columns) {
            let _ = write!(
                out,
                "<td class=\"{}\">{}</td>",
                class(column.kind),
                text(cell)
            );
        }
        out.push_str("</tr>\n");
    }
    let _ = writeln!(
        out,
        "</tbody>\n</table></div>\n<p class=\"note\" id=\"note-{id}\">{}</p>\n</section>",
        text(&table.note)
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::dashboard::{Drift, Figures, Order, cards, drift_table, figures_table};

    fn hostile_view() -> View {
        let name = "<img src=x onerror=alert(1)>";
        let drift = Drift {
            time: "t".into(),
            session: "s\"><script>alert(2)</script>".into(),
            model: name.into(),
            parts: vec!["system".into()],
            part: "system".into(),
            offset: Some(3),
            previous: Some("</td></tr><b>x".into()),
            current: Some("'&".into()),
            missing: None,
        };
        View {
            title: name.into(),
            subtitle: name.into(),
            summary: name.into(),
            cards: cards(&Figures::default()),
            charts: vec![],
            tables: vec![
                figures_table(
                    "model",
                    "Per model",
                    name,
                    vec![(name.into(), Figures::default())],
                    10,
                    Order::Calls,
                ),
                drift_table(&[drift], 1, true),
            ],
        }
    }

    #[test]
    fn client_strings_are_text_in_every_place() {
        for mode in [
            Mode::File,
            Mode::Live {
                assets: "/dashboard",
                source: "/dashboard.json",
                every_ms: 2000,
            },
        ] {
            let html = page(&hostile_view(), mode, "<footer>");
            assert!(!html.contains("<img"), "{html}");
            assert!(!html.contains("<script>alert"), "{html}");
            assert!(!html.contains("<b>"), "{html}");
            assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
            // The only scripts: the live page's own file.
            assert_eq!(
                html.matches("<script").count(),
                usize::from(matches!(mode, Mode::Live { .. }))
            );
        }
    }

    #[test]
    fn a_file_report_allows_its_own_stylesheet_by_hash_and_nothing_else() {
        let csp = file_csp();
        assert!(csp.starts_with("default-src 'none'; style-src 'sha256-"));
        assert!(!csp.contains("unsafe"));
        let html = page(&hostile_view(), Mode::File, "");
        assert!(html.contains(&escape(&csp)));
        // Nothing to fetch: no URL of any scheme (the SVG namespace is a name, not a fetch).
        let named = html.replace("http://www.w3.org/2000/svg", "");
        assert!(!named.contains("://"), "{named}");
    }
}
