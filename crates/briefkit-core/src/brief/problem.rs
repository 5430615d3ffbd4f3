//! Problems found while loading a brief, each pinned to a file, line and column.
//!
//! Loading reports every problem at once, so an operator fixes a brief in one pass
//! instead of one error per run.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Location};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub severity: Severity,
    pub file: PathBuf,
    /// 1-based; 0 when the problem concerns the whole file.
    pub line: usize,
    /// 1-based, in characters; 0 when unknown.
    pub column: usize,
    pub message: String,
    /// A stable name for problems that callers treat specially (e.g. `static-placeholder`).
    pub code: Option<&'static str>,
}

impl Problem {
    pub fn error(file: &Path, line: usize, column: usize, message: impl Into<String>) -> Self {
        Problem {
            severity: Severity::Error,
            file: file.to_path_buf(),
            line,
            column,
            message: message.into(),
            code: None,
        }
    }

    pub fn with_code(mut self, code: &'static str) -> Self {
        self.code = Some(code);
        self
    }

    pub fn warning(file: &Path, line: usize, column: usize, message: impl Into<String>) -> Self {
        Problem {
            severity: Severity::Warning,
            ..Self::error(file, line, column, message)
        }
    }

    /// The problem as a located detail of an error (file, line, column, message).
    pub fn to_location(&self) -> Location {
        Location::new(&self.file, self.line, self.column, self.message.clone())
    }

    /// `file:line:column`, leaving out what is unknown.
    pub fn location(&self) -> String {
        let file = self.file.display();
        match (self.line, self.column) {
            (0, _) => format!("{file}"),
            (line, 0) => format!("{file}:{line}"),
            (line, column) => format!("{file}:{line}:{column}"),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location(), self.message)
    }
}

/// Turns the errors among `problems` into one input error (exit 2) listing all of them.
pub fn into_error(brief_dir: &Path, problems: &[Problem]) -> Error {
    let errors: Vec<&Problem> = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .collect();
    let count = errors.len();
    let noun = if count == 1 { "problem" } else { "problems" };
    Error::input(format!("{} has {count} {noun}", brief_dir.display()))
        .with_locations(errors.iter().map(|p| p.to_location()))
        .with_hint("fix the lines above; nothing was written")
}

/// Line and column (1-based, column in characters) of a byte offset in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..floor_char_boundary(text, offset)];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// Line and column lookups for many offsets in one text, in time linear in the text plus
/// the queries when the offsets come in increasing order (as problems are found): the
/// line starts are found once, and a column is counted on from the previous query when it
/// lies on the same line. [`line_col`] rescans from the start, which made reporting many
/// problems in one file quadratic.
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
    /// The last query: byte offset, line index, column.
    last: std::cell::Cell<(usize, usize, usize)>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex {
            text,
            starts,
            last: std::cell::Cell::new((0, 0, 1)),
        }
    }

    /// The same answer as [`line_col`]`(text, offset)`.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(self.text, offset.min(self.text.len()));
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let (last_offset, last_line, last_column) = self.last.get();
        let (from, column) = if last_line == line && last_offset <= offset {
            (last_offset, last_column)
        } else {
            (self.starts[line], 1)
        };
        let column = column + self.text[from..offset].chars().count();
        self.last.set((offset, line, column));
        (line + 1, column)
    }
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters_not_bytes() {
        let text = "ab\ncé d";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 3), (2, 1));
        assert_eq!(line_col(text, 6), (2, 3));
    }

    #[test]
    fn line_index_agrees_with_line_col_in_any_order() {
        let text = "ab\ncé d\n\nlast line é";
        let index = LineIndex::new(text);
        let offsets: Vec<usize> = (0..=text.len() + 2).chain((0..text.len()).rev()).collect();
        for offset in offsets {
            assert_eq!(
                index.line_col(offset),
                line_col(text, offset),
                "offset {offset}"
            );
        }
    }

    #[test]
    fn location_leaves_out_unknown_parts() {
        let p = Problem::error(Path::new("a.md"), 0, 0, "x");
        assert_eq!(p.to_string(), "a.md: x");
        let p = Problem::warning(Path::new("a.md"), 3, 0, "x");
        assert_eq!(p.to_string(), "a.md:3: x");
    }
}
