//! The one table helper for human output: columns as wide as their widest cell, measured
//! in terminal columns (colour codes and wide characters counted right), so a long item id
//! or model name widens its column instead of shifting every column after it.

use console::measure_text_width;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A table: a header row, then rows of cells, rendered with one gap between columns and
/// no trailing spaces.
#[derive(Debug, Clone)]
pub struct Table {
    aligns: Vec<Align>,
    header: Option<Vec<String>>,
    rows: Vec<Vec<String>>,
    indent: String,
    gap: String,
}

impl Table {
    /// A table whose columns are aligned as given; the number of columns is `aligns.len()`.
    pub fn new(aligns: &[Align]) -> Self {
        Table {
            aligns: aligns.to_vec(),
            header: None,
            rows: Vec::new(),
            indent: String::new(),
            gap: "  ".to_string(),
        }
    }

    /// Column titles (conventionally upper case).
    pub fn header<S: Into<String>>(mut self, titles: impl IntoIterator<Item = S>) -> Self {
        self.header = Some(titles.into_iter().map(Into::into).collect());
        self
    }

    /// Text put before every line (e.g. two spaces under a heading).
    pub fn indent(mut self, indent: &str) -> Self {
        self.indent = indent.to_string();
        self
    }

    /// The text between two columns (two spaces unless set).
    pub fn gap(mut self, gap: &str) -> Self {
        self.gap = gap.to_string();
        self
    }

    pub fn row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) {
        self.rows.push(cells.into_iter().map(Into::into).collect());
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The rendered lines, each ending in a newline.
    pub fn render(&self) -> String {
        self.render_header_with(|line| line.to_string())
    }

    /// The rendered lines with the header line passed through `paint` (e.g. dimmed), so
    /// colour never enters the width measurement of the other rows.
    pub fn render_header_with(&self, paint: impl Fn(&str) -> String) -> String {
        let columns = self.aligns.len();
        let mut widths = vec![0usize; columns];
        for row in self.header.iter().chain(&self.rows) {
            for (i, cell) in row.iter().enumerate().take(columns) {
                widths[i] = widths[i].max(measure_text_width(cell));
            }
        }
        let mut out = String::new();
        let header_lines = usize::from(self.header.is_some());
        for (index, row) in self.header.iter().chain(&self.rows).enumerate() {
            let mut line = self.indent.clone();
            for (i, (width, align)) in widths.iter().zip(&self.aligns).enumerate() {
                let cell = row.get(i).map_or("", String::as_str);
                let pad = width.saturating_sub(measure_text_width(cell));
                if i > 0 {
                    line.push_str(&self.gap);
                }
                match align {
                    Align::Right => {
                        line.push_str(&" ".repeat(pad));
                        line.push_str(cell);
                    }
                    Align::Left => {
                        line.push_str(cell);
                        line.push_str(&" ".repeat(pad));
                    }
                }
            }
            let line = line.trim_end();
            if index < header_lines {
                out.push_str(&paint(line));
            } else {
                out.push_str(line);
            }
            out.push('\n');
        }
        out
    }
}

/// The widest a free-text cell (a note, a reason) is shown in a table: the JSON form keeps
/// the whole text.
pub const MAX_TEXT_CELL: usize = 72;

/// `text` on one line and at most `max` characters, cut at a word boundary where one is
/// near, with `…` where it was cut.
pub fn clip_cell(text: &str, max: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    let keep: String = one_line.chars().take(max.saturating_sub(1)).collect();
    let cut = match keep.rfind(' ') {
        Some(space) if space * 4 >= keep.len() * 3 => &keep[..space],
        _ => keep.as_str(),
    };
    format!("{}…", cut.trim_end_matches([' ', ',', ';', ':']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_cell_is_clipped_with_an_ellipsis_on_one_line() {
        assert_eq!(clip_cell("short note", 72), "short note");
        let long = "word ".repeat(100);
        let clipped = clip_cell(&long, 30);
        assert!(clipped.chars().count() <= 30, "{clipped}");
        assert!(clipped.ends_with("word…"), "{clipped}");
        assert_eq!(clip_cell("a\nb", 72), "a b");
        let unbroken = "x".repeat(50);
        assert_eq!(clip_cell(&unbroken, 10).chars().count(), 10);
    }

    #[test]
    fn a_long_id_widens_its_column_and_keeps_the_others_aligned() {
        let mut table = Table::new(&[Align::Left, Align::Right]).header(["ITEM", "TOKENS"]);
        table.row(["a", "12"]);
        table.row(["a-very-long-item-identifier-indeed", "3"]);
        let text = table.render();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "ITEM                                TOKENS");
        assert_eq!(lines[1], "a                                       12");
        assert_eq!(lines[2], "a-very-long-item-identifier-indeed       3");
    }

    #[test]
    fn colour_codes_and_wide_characters_are_measured_as_shown() {
        let mut table = Table::new(&[Align::Left, Align::Left]).gap(" ");
        table.row(["\u{1b}[31mred\u{1b}[0m", "x"]);
        table.row(["日本", "y"]);
        table.row(["abcd", "z"]);
        let text = table.render();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "\u{1b}[31mred\u{1b}[0m  x");
        assert_eq!(lines[1], "日本 y");
        assert_eq!(lines[2], "abcd z");
    }

    #[test]
    fn no_line_ends_in_spaces() {
        let mut table = Table::new(&[Align::Left, Align::Left]).indent("  ");
        table.row(["long-first-cell", ""]);
        table.row(["x", "note"]);
        assert!(table.render().lines().all(|l| !l.ends_with(' ')));
    }
}
