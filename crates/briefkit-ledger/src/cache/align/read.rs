//! Reading request bodies one at a time from files, JSON-lines files and stdin, so that
//! `align` holds one body in memory however many it reads. Each body (a file, or a line)
//! is held to [`ALIGN_BODY`]; a FIFO or a device named as a payload is refused unopened.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Error, Location, Result};
use crate::files::input;
use crate::files::limits::{ALIGN_BODY, Limit};

/// Calls `each(source, body)` for every body, in order: a `.jsonl` file or `-` (stdin) is
/// one body per non-blank line, any other file one body.
pub fn for_each_body(
    payloads: &[PathBuf],
    mut each: impl FnMut(&str, Value) -> Result<()>,
) -> Result<()> {
    if payloads.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        return Err(Error::input("`-` (stdin) given more than once")
            .with_hint("stdin can be read once: put all its bodies on its lines"));
    }
    for path in payloads {
        if path.as_os_str() == "-" {
            lines("<stdin>", std::io::stdin().lock(), &mut each)?;
            continue;
        }
        let name = path.display().to_string();
        if path.extension().is_some_and(|ext| ext == "jsonl") {
            // Many bodies: the file may be long, each line is held to the limit.
            let any_length = Limit {
                bytes: u64::MAX,
                ..ALIGN_BODY
            };
            let (file, _) = input::open(path, any_length)?;
            lines(&name, BufReader::new(file), &mut each)?;
        } else {
            each(&name, whole(path, &name)?)?;
        }
    }
    Ok(())
}

fn whole(path: &Path, name: &str) -> Result<Value> {
    let bytes = input::read_bytes(path, ALIGN_BODY)?;
    serde_json::from_slice(&bytes).map_err(|e| bad_json(name, e.line(), e.column(), e))
}

fn lines(
    name: &str,
    mut reader: impl BufRead,
    each: &mut impl FnMut(&str, Value) -> Result<()>,
) -> Result<()> {
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        line.clear();
        let read = (&mut reader)
            .take(ALIGN_BODY.bytes + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| Error::input(format!("{name}: {e}")).with_source(e))?;
        if read == 0 {
            return Ok(());
        }
        number += 1;
        if line.len() as u64 > ALIGN_BODY.bytes {
            return Err(Error::input(format!(
                "{name}:{number}: more than the {ALIGN_BODY} limit for {}; stopped reading",
                ALIGN_BODY.what
            )));
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let source = format!("{name}:{number}");
        let body =
            serde_json::from_slice(&line).map_err(|e| bad_json(name, number, e.column(), e))?;
        each(&source, body)?;
    }
}

/// A payload that does not parse, located (`file:line:column`) for people and for
/// `--json`'s `locations`.
fn bad_json(name: &str, line: usize, column: usize, err: serde_json::Error) -> Error {
    let location = Location::new(Path::new(name), line, column, "not valid JSON");
    Error::input(format!("{}: not valid JSON: {err}", location.position()))
        .with_source(err)
        .with_locations([location])
        .with_hint("each payload is one JSON request body; on stdin, one body per line")
}
