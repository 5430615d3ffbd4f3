//! Reading the ledger back: a line at a time, every line that is not a plausible call's
//! record skipped with a warning (a torn last line, a corrupt one, figures no provider
//! reports), so a crash mid-write or a hand-edited file never stops a report.

use std::fmt;
use std::fs;
use std::io::{BufRead, Read};
use std::path::Path;

use super::{Entry, check_path};
use crate::error::{Error, Result};

/// Why an entry that parsed cannot be a real call's record: figures no provider reports
/// (cached or cache-written tokens above all input) or a time that is not a time. Such a
/// line is skipped with a warning rather than summed into nonsense.
pub fn implausible(entry: &Entry) -> Option<String> {
    if entry.time_ms().is_none() {
        return Some(format!(
            "`time` is not an RFC 3339 time (`{}`)",
            crate::text::sanitize::one_line(&entry.time, 40)
        ));
    }
    // No call takes a trillion tokens; bigger figures are corrupt and would overflow sums.
    use crate::wire::MAX_TOKENS;
    for (name, value) in [
        ("input_tokens", entry.input_tokens),
        ("cached_input_tokens", entry.cached_input_tokens),
        ("cache_write_tokens", entry.cache_write_tokens),
        ("output_tokens", entry.output_tokens),
    ] {
        if let Some(value) = value.filter(|v| *v > MAX_TOKENS) {
            return Some(format!(
                "{name} ({value}) is more than any call takes (the limit is {MAX_TOKENS})"
            ));
        }
    }
    // A price no model has (negative, or past the manifest's own cap) would turn every sum
    // it reaches into nonsense, as a corrupt token count would.
    use crate::brief::MAX_PRICE_PER_MTOK;
    for (name, value) in [
        ("price_input_per_mtok", entry.price_input_per_mtok),
        ("price_cached_per_mtok", entry.price_cached_per_mtok),
        ("price_output_per_mtok", entry.price_output_per_mtok),
    ] {
        if let Some(value) = value.filter(|v| !(0.0..=MAX_PRICE_PER_MTOK).contains(v)) {
            return Some(format!(
                "{name} ({value}) is not a price per million tokens from 0 to {MAX_PRICE_PER_MTOK}"
            ));
        }
    }
    let input = entry.input_tokens.unwrap_or(0);
    let part = entry
        .cached_input_tokens
        .unwrap_or(0)
        .checked_add(entry.cache_write_tokens.unwrap_or(0));
    match part {
        Some(part) if part <= input => None,
        _ => Some(format!(
            "cached_input_tokens ({}) and cache_write_tokens ({}) are part of input_tokens ({}) and cannot exceed it",
            entry.cached_input_tokens.unwrap_or(0),
            entry.cache_write_tokens.unwrap_or(0),
            input
        )),
    }
}

/// A line of the ledger that could not be read and was skipped (reports list them as
/// `{line, torn, message}`; from ClickHouse, skipped rows are one warning of line 0).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Warning {
    /// 1-based line number.
    pub line: usize,
    /// The last line, without a final newline: what a crash mid-write leaves.
    pub torn: bool,
    pub message: String,
}

impl Warning {
    /// A report's status: `ok`, or `warning` when lines (or rows) were skipped.
    pub fn status_of(warnings: &[Warning]) -> &'static str {
        if warnings.is_empty() { "ok" } else { "warning" }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Reads every entry, skipping (with a warning) lines that are not a ledger entry.
/// Blank lines are skipped silently. A missing file is an error (`Error::io`).
/// A link, a file that is not regular and a file that is not a ledger are refused, as
/// [`check_path`] says.
pub fn read(path: &Path) -> Result<(Vec<Entry>, Vec<Warning>)> {
    let mut entries = Vec::new();
    let warnings = read_each(path, |entry| entries.push(entry))?;
    Ok((entries, warnings))
}

/// [`read`], one entry at a time: the file is read a line at a time, so memory follows
/// what `each` keeps, not the ledger's size. A line over [`LEDGER_LINE`] (a real entry is
/// well under 4 KiB) is skipped with a warning without being held; after
/// [`MAX_WARNINGS`] warnings the rest are counted in one last warning.
pub fn read_each(path: &Path, mut each: impl FnMut(Entry)) -> Result<Vec<Warning>> {
    read_numbered(path, |_, entry| each(entry), |_| {})
}

/// [`read_each`] with each entry's 1-based line number, and `read` told how many bytes of
/// the file have been read so far (for a progress bar).
pub fn read_numbered(
    path: &Path,
    each: impl FnMut(usize, Entry),
    mut read: impl FnMut(u64),
) -> Result<Vec<Warning>> {
    if !path.exists() && fs::symlink_metadata(path).is_err() {
        return Err(Error::io(
            path,
            &std::io::Error::from(std::io::ErrorKind::NotFound),
        ));
    }
    check_path(path)?;
    let any_length = crate::files::limits::Limit {
        bytes: u64::MAX,
        ..LEDGER_LINE
    };
    let (file, _) = crate::files::input::open(path, any_length)?;
    let counted = Counted {
        inner: file,
        read: &mut read,
        total: 0,
    };
    scan(std::io::BufReader::with_capacity(1 << 16, counted), each).map_err(|e| Error::io(path, &e))
}

/// A reader that reports how much it has read.
struct Counted<'a, R> {
    inner: R,
    read: &'a mut dyn FnMut(u64),
    total: u64,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.total += n as u64;
        (self.read)(self.total);
        Ok(n)
    }
}

/// Parses ledger bytes; see [`read`].
pub fn parse(bytes: &[u8]) -> (Vec<Entry>, Vec<Warning>) {
    let mut entries = Vec::new();
    let warnings = scan(bytes, |_, entry| entries.push(entry)).unwrap_or_default();
    (entries, warnings)
}

/// The longest ledger line read; longer ones are skipped with a warning.
pub const LEDGER_LINE: crate::files::limits::Limit =
    crate::files::limits::Limit::mib(1, "a ledger line");

/// Warnings kept in full; the rest are counted.
pub const MAX_WARNINGS: usize = 1000;

fn scan(
    mut reader: impl std::io::BufRead,
    mut each: impl FnMut(usize, Entry),
) -> std::io::Result<Vec<Warning>> {
    let mut warnings = Vec::new();
    let mut more = 0usize;
    let mut warn = |warning: Warning| {
        if warnings.len() < MAX_WARNINGS {
            warnings.push(warning);
        } else {
            more += 1;
        }
    };
    let mut line = Vec::new();
    let mut number = 0usize;
    loop {
        line.clear();
        let read = (&mut reader)
            .take(LEDGER_LINE.bytes + 1)
            .read_until(b'\n', &mut line)?;
        if read == 0 {
            break;
        }
        number += 1;
        let terminated = line.last() == Some(&b'\n');
        if !terminated && line.len() as u64 > LEDGER_LINE.bytes {
            // Skip the rest of the line without holding it.
            loop {
                let buf = reader.fill_buf()?;
                if buf.is_empty() {
                    break;
                }
                match memchr::memchr(b'\n', buf) {
                    Some(at) => {
                        reader.consume(at + 1);
                        break;
                    }
                    None => {
                        let n = buf.len();
                        reader.consume(n);
                    }
                }
            }
            warn(Warning {
                line: number,
                torn: false,
                message: format!("longer than the {LEDGER_LINE} a ledger line can be; skipped"),
            });
            continue;
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Entry>(text) {
            Ok(entry) => match implausible(&entry) {
                None => each(number, entry),
                Some(why) => warn(Warning {
                    line: number,
                    torn: false,
                    message: format!("{why}; skipped"),
                }),
            },
            Err(err) => {
                // Only the last line can be unterminated: a write cut short.
                let torn = !terminated;
                let message = if torn {
                    "torn last line (a write cut short, e.g. by a crash); skipped".to_string()
                } else {
                    format!("not a ledger entry ({err}); skipped")
                };
                warn(Warning {
                    line: number,
                    torn,
                    message,
                });
            }
        }
    }
    if more > 0 {
        warnings.push(Warning {
            line: number,
            torn: false,
            message: format!(
                "{more} more lines were skipped (only the first {MAX_WARNINGS} are listed)"
            ),
        });
    }
    Ok(warnings)
}
