//! Identifiers written outside backticks: `snake_case` and `camelCase` names (tools,
//! fields, functions), dotted names (`os.path.join`, `config.yaml`), file paths
//! (`src/main.rs`, `/etc/hosts`, `~/.config/`), environment variables (`$HOME`,
//! `OPENAI_API_KEY`) and command-line flags (`--json`, `-D`). A rewrite that drops the
//! backticks keeps the name; one that drops the name lost a fact, as with inline code.
//!
//! One hand-written scan over runs of identifier characters: each byte is looked at once
//! or twice, and a plain word (all lowercase letters) is passed over at once.

use super::Kind;
use super::patterns::Found;

fn is_run_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'~' | b'$' | b'-' | b'\\')
}

/// Every identifier of `text` (prose: code, URLs, e-mail addresses and placeholders
/// already blanked), in order.
pub fn identifiers(text: &str, out: &mut Vec<Found>) {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if !is_run_byte(bytes[at]) {
            at += 1;
            continue;
        }
        let start = at;
        // A Windows drive (`C:\`) is the one place a colon belongs to a run.
        let mut end = start;
        while end < bytes.len()
            && (is_run_byte(bytes[end])
                || (bytes[end] == b':'
                    && end == start + 1
                    && bytes[start].is_ascii_alphabetic()
                    && bytes.get(end + 1) == Some(&b'\\')))
        {
            end += 1;
        }
        at = end;
        // A run glued to a non-ASCII letter is part of a word we do not read (`naïve_x`).
        if bytes.get(end).is_some_and(|b| *b >= 0x80) || (start > 0 && bytes[start - 1] >= 0x80) {
            continue;
        }
        let run = &text[start..end];
        if let Some((from, to)) = classify(text, start, run) {
            out.push(Found {
                kind: Kind::Identifier,
                start: start + from,
                end: start + to,
                canonical: run[from..to].to_string(),
            });
        }
    }
}

/// Where in `run` an identifier is (byte range), if it holds one.
fn classify(text: &str, start: usize, run: &str) -> Option<(usize, usize)> {
    let b = run.as_bytes();
    // Fast path: a plain word, a number, a hyphenated word.
    let special = b
        .iter()
        .any(|c| matches!(c, b'_' | b'.' | b'/' | b'$' | b'\\'))
        || b[0] == b'-'
        || inner_capital(run);
    if !special {
        return None;
    }
    let before = text[..start].bytes().next_back();
    if b[0] == b'-' {
        return flag(run, before);
    }
    // Sentence punctuation after a name is not part of it.
    let trimmed = run.trim_end_matches(['.', '-', '~']);
    let to = trimmed.len();
    if to == 0 {
        return None;
    }
    let t = &run[..to];
    if before.is_some_and(|c| matches!(c, b'@' | b'#' | b'%' | b'&' | b'=' | b'<')) {
        return None;
    }
    if t.contains(['/', '\\']) {
        return path(t).then_some((0, to));
    }
    if let Some(rest) = t.strip_prefix('$') {
        let ok = rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && rest.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
        return ok.then_some((0, to));
    }
    if t.contains('-') {
        // Hyphenated words and codes (`NW-20417`) are not identifiers.
        return None;
    }
    if t.contains('.') {
        return dotted(t).then_some((0, to));
    }
    if snake(t) || (inner_capital(t) && t.bytes().all(|c| c.is_ascii_alphanumeric())) {
        return Some((0, to));
    }
    None
}

/// A lowercase letter or digit followed by a capital: `lookupOrder`, `GitHub`, `iOS`.
fn inner_capital(w: &str) -> bool {
    let b = w.as_bytes();
    b.windows(2)
        .any(|p| (p[0].is_ascii_lowercase() || p[0].is_ascii_digit()) && p[1].is_ascii_uppercase())
        && b.iter().any(u8::is_ascii_lowercase)
}

/// An underscore between two letters or digits (`lookup_order`, `OPENAI_API_KEY`,
/// `o200k_base`), not Markdown emphasis (`_word_`) nor a numbered id (`msg_12`).
fn snake(w: &str) -> bool {
    let b = w.as_bytes();
    let inner = (1..b.len().saturating_sub(1)).any(|i| {
        b[i] == b'_'
            && b[..i].last().is_some_and(u8::is_ascii_alphanumeric)
            && b[i + 1..]
                .iter()
                .find(|c| **c != b'_')
                .is_some_and(u8::is_ascii_alphanumeric)
    });
    // A counter after a word (`msg_12`, `tool_call_3`) numbers things: an id of a
    // conversation or a run, not a name a brief defines.
    let counter = w
        .rsplit('_')
        .next()
        .is_some_and(|last| !last.is_empty() && last.bytes().all(|c| c.is_ascii_digit()));
    inner
        && !counter
        && b.iter().any(u8::is_ascii_alphabetic)
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// `config.yaml`, `os.path.join`, `Node.js`: segments of letters, digits and
/// underscores, each after the first starting with a lowercase letter or `_`, one of them
/// at least three long (not `e.g`, `U.S`, `a.m`).
fn dotted(w: &str) -> bool {
    let segments: Vec<&str> = w.split('.').collect();
    segments.len() >= 2
        && segments
            .iter()
            .all(|s| !s.is_empty() && s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_'))
        && segments[0].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && segments[1..]
            .iter()
            .all(|s| s.starts_with(|c: char| c.is_ascii_lowercase() || c == '_'))
        && segments.iter().any(|s| s.len() >= 3)
}

/// A path: starting at `/`, `./`, `../`, `~/` or a drive, or relative with two slashes,
/// a file extension or a closing slash (`src/main.rs`, `briefs/support/items`, `items/`);
/// with a letter in it (not a date such as `2024/05/15`). `and/or` is not a path.
fn path(w: &str) -> bool {
    if !w.bytes().any(|c| c.is_ascii_alphabetic()) || w.contains("//") {
        return false;
    }
    let rooted = ["/", "./", "../", "~/"]
        .iter()
        .any(|p| w.starts_with(p) && w.len() > p.len())
        || w.as_bytes().get(1..3) == Some(b":\\")
        || w.strip_prefix('$')
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'));
    if rooted {
        return w.len() >= 3;
    }
    let slashes = w.bytes().filter(|c| *c == b'/' || *c == b'\\').count();
    let last = w.rsplit(['/', '\\']).next().unwrap_or("");
    let extension = last.rsplit_once('.').is_some_and(|(name, ext)| {
        !name.is_empty()
            && (1..=8).contains(&ext.len())
            && ext.bytes().all(|c| c.is_ascii_alphanumeric())
            && ext.bytes().any(|c| c.is_ascii_alphabetic())
    });
    // `he/she/they` is prose: a path of plain words has one word of five letters or more.
    let long = w
        .split(['/', '\\'])
        .any(|s| s.len() >= 5 || s.bytes().any(|c| !c.is_ascii_lowercase()));
    (slashes >= 2 && long) || extension || (w.ends_with('/') && w.len() >= 3)
}

/// `--json`, `--allow-flags`, `-D`, `-rf`: after a space, a bracket or the start of a
/// line; a single dash takes one or two letters.
fn flag(run: &str, before: Option<u8>) -> Option<(usize, usize)> {
    if before.is_some_and(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'(' | b'[' | b'"' | b'\'')) {
        return None;
    }
    let name = run.trim_end_matches(['.', '-']);
    let end = name.find(['/', '\\', '.', '$', '~']).unwrap_or(name.len());
    let name = &name[..end];
    if name.len() < 2 {
        return None;
    }
    let ok = if let Some(long) = name.strip_prefix("--") {
        long.starts_with(|c: char| c.is_ascii_alphabetic())
            && long.len() >= 2
            && long
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
    } else {
        let short = &name[1..];
        (1..=2).contains(&short.len()) && short.bytes().all(|c| c.is_ascii_alphabetic())
    };
    ok.then_some((0, name.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        identifiers(text, &mut out);
        out.iter().map(|f| &text[f.start..f.end]).collect()
    }

    #[test]
    fn names_paths_variables_and_flags() {
        assert_eq!(
            found("Call lookup_order, then lookupOrder on GitHub."),
            ["lookup_order", "lookupOrder", "GitHub"]
        );
        assert_eq!(
            found("Edit src/main.rs and /etc/hosts, not ~/.config/ or items/."),
            ["src/main.rs", "/etc/hosts", "~/.config/", "items/"]
        );
        assert_eq!(
            found("Set OPENAI_API_KEY or $HOME; run with --json or -D."),
            ["OPENAI_API_KEY", "$HOME", "--json", "-D"]
        );
        assert_eq!(
            found("Read config.yaml via os.path.join."),
            ["config.yaml", "os.path.join"]
        );
    }

    #[test]
    fn prose_that_only_looks_like_names_is_not() {
        assert!(found("e.g. the U.S. at 3 a.m., and/or 24/7 on 2024/05/15").is_empty());
        assert!(found("a _word_ in __bold__, e-mail, NW-20417, self-service").is_empty());
        assert!(found("- item -- dash, x -ish, 3.5 and v2.3.1").is_empty());
        assert!(found("API URL JSON HTTP he/she/they $/month <br/> </div>").is_empty());
    }
}
