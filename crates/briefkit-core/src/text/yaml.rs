//! The one YAML reader: parsing YAML from files a pull request or an agent can plant, in
//! time linear in their size and memory bounded by a limit.
//!
//! The YAML scanner keeps one pending "simple key" per open flow collection (`[` / `{`)
//! and revisits all of them for every token, so deep flow nesting costs time quadratic
//! in the nesting depth: a 128 KB front matter of `[` took 27 s, a digest of 64k levels
//! 8.9 s. Every YAML text the toolkit reads (a brief's manifest, items, lock, versions and
//! proposals, a wake digest, a session's `session.yaml`) goes through [`from_str`], which
//! refuses a text over [`MAX_BYTES`] and measures the flow depth in one pass first,
//! refusing nesting past [`MAX_FLOW_DEPTH`] before the parser sees it. The deserialiser
//! refuses 128 levels of any nesting anyway, so no readable file is refused here.

use std::fmt;

use serde::de::DeserializeOwned;

/// Deepest flow nesting (`[` and `{` inside each other) accepted in a YAML file.
pub const MAX_FLOW_DEPTH: usize = 64;

/// The largest YAML text parsed: the largest YAML file the toolkit writes (a lock, a
/// version or a proposal file, 64 MiB each). Callers reading a file hold it to its own,
/// usually smaller, limit before it is read.
pub const MAX_BYTES: usize = 64 * 1024 * 1024;

/// Why a YAML text was refused, with the 1-based line and column where known.
#[derive(Debug)]
pub enum YamlError {
    TooDeep {
        line: usize,
        column: usize,
    },
    TooLarge {
        bytes: usize,
    },
    Parse(serde_yaml::Error),
    /// A key given twice in one mapping, at the second key (the parser reports where the
    /// mapping starts, which for a top-level key is always 1:1).
    Duplicate {
        message: String,
        line: usize,
        column: usize,
    },
}

impl YamlError {
    /// Line and column (1-based) of the problem, when known.
    pub fn location(&self) -> Option<(usize, usize)> {
        match self {
            YamlError::TooDeep { line, column } => Some((*line, *column)),
            YamlError::TooLarge { .. } => None,
            YamlError::Parse(err) => err.location().map(|l| (l.line(), l.column())),
            YamlError::Duplicate { line, column, .. } => Some((*line, *column)),
        }
    }

    /// The message without the "at line L column C" the parser appends (callers put the
    /// location in front, as `file:line:column`).
    pub fn message(&self) -> String {
        match self {
            YamlError::TooDeep { .. } => format!(
                "nested deeper than {MAX_FLOW_DEPTH} levels of `[`/`{{`; no YAML file of briefkit needs that much"
            ),
            YamlError::TooLarge { bytes } => format!(
                "{bytes} bytes of YAML is over the {} MiB limit",
                MAX_BYTES / (1024 * 1024)
            ),
            YamlError::Parse(err) => without_location(err),
            YamlError::Duplicate { message, .. } => message.clone(),
        }
    }
}

fn without_location(err: &serde_yaml::Error) -> String {
    let message = err.to_string();
    match message.find(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message,
    }
}

/// A "duplicate field" error moved from the start of its mapping to the repeated key.
fn locate_duplicate(text: &str, err: serde_yaml::Error) -> YamlError {
    let message = without_location(&err);
    let key = message
        .split("duplicate field `")
        .nth(1)
        .and_then(|rest| rest.split('`').next());
    let found = key.and_then(|key| {
        let location = err.location()?;
        second_key(text, key, location.line(), location.column())
    });
    match found {
        Some((line, column)) => YamlError::Duplicate {
            message,
            line,
            column,
        },
        None => YamlError::Parse(err),
    }
}

/// Where `key` is given the second time in the block mapping whose first key is at
/// `line`:`column` (1-based): the keys of that mapping are the lines indented as deep as
/// its first key, up to the first line indented less.
fn second_key(text: &str, key: &str, line: usize, column: usize) -> Option<(usize, usize)> {
    let indent = column.checked_sub(1)?;
    let mut seen = 0;
    for (index, row) in text.split('\n').enumerate().skip(line.checked_sub(1)?) {
        let (depth, rest) = if index + 1 == line {
            let start = row.char_indices().nth(indent).map(|(i, _)| i)?;
            (indent, &row[start..])
        } else {
            let rest = row.trim_start_matches(' ');
            (row.len() - rest.len(), rest)
        };
        let content = rest.trim_end();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        if depth < indent {
            break;
        }
        if depth > indent {
            continue;
        }
        let named = [key.to_string(), format!("\"{key}\""), format!("'{key}'")]
            .iter()
            .any(|quoted| {
                rest.strip_prefix(quoted.as_str())
                    .is_some_and(|after| after.trim_start_matches([' ', '\t']).starts_with(':'))
            });
        if named {
            seen += 1;
            if seen == 2 {
                return Some((index + 1, row[..row.len() - rest.len()].chars().count() + 1));
            }
        }
    }
    None
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location() {
            Some((line, column)) => write!(f, "{} at line {line} column {column}", self.message()),
            None => f.write_str(&self.message()),
        }
    }
}

impl std::error::Error for YamlError {}

/// `serde_yaml::from_str`, refusing a text over [`MAX_BYTES`] and flow nesting deeper
/// than [`MAX_FLOW_DEPTH`] first.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    if text.len() > MAX_BYTES {
        return Err(YamlError::TooLarge { bytes: text.len() });
    }
    if let Some((line, column)) = too_deep(text, MAX_FLOW_DEPTH) {
        return Err(YamlError::TooDeep { line, column });
    }
    serde_yaml::from_str(text).map_err(|err| {
        if err.to_string().starts_with("duplicate field `")
            || err.to_string().contains(": duplicate field `")
        {
            locate_duplicate(text, err)
        } else {
            YamlError::Parse(err)
        }
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Quote {
    None,
    Single,
    Double,
}

/// Where flow nesting first goes deeper than `limit`, in one pass over `text`.
///
/// A conservative reading of YAML's lexical structure, enough to tell a flow bracket
/// from the same character inside a quoted, plain or block scalar or a comment: in block
/// context a `[` or `{` opens a flow collection only where a value starts (after the
/// indentation, `- `, `? ` or `: `). A misreading can only overcount, and only a text
/// with `limit` unclosed brackets in a row could then be refused.
pub fn too_deep(text: &str, limit: usize) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let mut quote = Quote::None;
    // Indentation of the line that opened a block scalar (`|` or `>`); deeper lines are
    // its content.
    let mut block_scalar: Option<usize> = None;
    for (index, line) in text.split('\n').enumerate() {
        let bytes = line.as_bytes();
        let indent = bytes.iter().take_while(|&&b| b == b' ').count();
        if let Some(parent) = block_scalar {
            if line.trim().is_empty() || indent > parent {
                continue;
            }
            block_scalar = None;
        }
        let mut i = if quote == Quote::None && depth == 0 {
            indent
        } else {
            0
        };
        let mut value_start = quote == Quote::None && depth == 0;
        while i < bytes.len() {
            let b = bytes[i];
            match quote {
                Quote::Double => {
                    match b {
                        b'\\' => i += 1,
                        b'"' => quote = Quote::None,
                        _ => {}
                    }
                    i += 1;
                    continue;
                }
                Quote::Single => {
                    if b == b'\'' {
                        if bytes.get(i + 1) == Some(&b'\'') {
                            i += 1;
                        } else {
                            quote = Quote::None;
                        }
                    }
                    i += 1;
                    continue;
                }
                Quote::None => {}
            }
            let after_space = i == 0 || matches!(bytes[i - 1], b' ' | b'\t');
            let spaced = |at: usize| matches!(bytes.get(at), None | Some(b' ' | b'\t' | b'\r'));
            if b == b'#' && after_space {
                break;
            }
            if depth > 0 {
                match b {
                    b'[' | b'{' => {
                        depth += 1;
                        if depth > limit {
                            return Some((index + 1, line[..i].chars().count() + 1));
                        }
                    }
                    b']' | b'}' => depth -= 1,
                    b'"' => quote = Quote::Double,
                    b'\'' => quote = Quote::Single,
                    _ => {}
                }
                i += 1;
                continue;
            }
            if value_start {
                match b {
                    b' ' | b'\t' => {}
                    b'[' | b'{' => {
                        depth = 1;
                        if depth > limit {
                            return Some((index + 1, line[..i].chars().count() + 1));
                        }
                        value_start = false;
                    }
                    b'"' => {
                        quote = Quote::Double;
                        value_start = false;
                    }
                    b'\'' => {
                        quote = Quote::Single;
                        value_start = false;
                    }
                    b'|' | b'>' => {
                        block_scalar = Some(indent);
                        break;
                    }
                    b'-' | b'?' | b':' if spaced(i + 1) => {}
                    // A document marker (`--- [` or `... [`) at the start of a line.
                    b'-' | b'.'
                        if i == 0
                            && bytes.len() >= 3
                            && bytes[..3].iter().all(|&c| c == b)
                            && spaced(3) =>
                    {
                        i += 3;
                        continue;
                    }
                    b'&' | b'!' => {
                        // An anchor or tag: the value starts after it.
                        while i < bytes.len() && !matches!(bytes[i], b' ' | b'\t') {
                            i += 1;
                        }
                        continue;
                    }
                    _ => value_start = false,
                }
                i += 1;
                continue;
            }
            // Inside a key or a plain scalar: a value starts after `: `.
            if b == b':' && spaced(i + 1) {
                value_start = true;
            }
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_depth_counts_only_flow_brackets() {
        assert_eq!(too_deep("a: [[[]]]\n", 3), None);
        assert_eq!(too_deep("a: [[[[]]]]\n", 3), Some((1, 7)));
        assert_eq!(too_deep("a: {b: [{c: 1}]}\n", 2), Some((1, 9)));
        // Brackets in scalars, quotes, comments and block scalars are text.
        let text = "a: x[[[[\nb: \"[[[[\"\nc: '[[[['\n# [[[[\nd: |\n  [[[[\n  {{{{\ne: [1]\n";
        assert_eq!(too_deep(text, 1), None);
        // A quoted string in flow hides its brackets, and may span lines.
        assert_eq!(too_deep("a: [\"[[\n[[\", ']]''[[']\n", 1), None);
        // A sequence entry, a tag and an anchor still start a value.
        assert_eq!(too_deep("- - [[x]]\n", 1), Some((1, 6)));
        assert_eq!(too_deep("a: !t &x [[x]]\n", 1), Some((1, 11)));
        // After a document marker a value starts too.
        assert_eq!(too_deep("--- [[x]]\n", 1), Some((1, 6)));
        assert_eq!(too_deep("---\n[[x]]\n", 1), Some((2, 2)));
        assert_eq!(too_deep("--x [[\n", 1), None);
    }

    #[test]
    fn deep_flow_nesting_is_refused_before_parsing() {
        let text = format!("title: {}", "[".repeat(100_000));
        let err = from_str::<serde_yaml::Value>(&text).unwrap_err();
        assert_eq!(err.location(), Some((1, 8 + MAX_FLOW_DEPTH)));
        assert!(err.message().contains("nested deeper than 64"));
        let err =
            from_str::<serde_yaml::Value>(&format!("--- {}", "[".repeat(100_000))).unwrap_err();
        assert!(matches!(err, YamlError::TooDeep { .. }), "{err}");
    }

    #[test]
    fn a_text_over_the_limit_is_refused_unread() {
        let text = " ".repeat(MAX_BYTES + 1);
        let err = from_str::<serde_yaml::Value>(&text).unwrap_err();
        assert!(matches!(err, YamlError::TooLarge { .. }));
        assert!(err.message().contains("over the 64 MiB limit"), "{err}");
    }

    #[test]
    fn a_duplicate_key_is_reported_at_the_repeated_key() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Inner {
            a: Option<u32>,
            b: Option<u32>,
        }
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Outer {
            name: Option<String>,
            inner: Option<Inner>,
            list: Option<Vec<Inner>>,
        }
        let at = |text: &str| {
            let err = from_str::<Outer>(text).unwrap_err();
            assert!(err.message().contains("duplicate field"), "{err}");
            err.location()
        };
        assert_eq!(at("# c\nname: x\ninner:\n  a: 1\nname: y\n"), Some((5, 1)));
        assert_eq!(
            at("name: x\ninner:\n  a: 1\n  b: 2\n\n  a: 3\n"),
            Some((6, 3))
        );
        assert_eq!(at("list:\n  - a: 1\n    b: 2\n    a: 3\n"), Some((4, 5)));
        assert_eq!(at("inner:\n  a: 1\n  \"a\" : 3\n"), Some((3, 3)));
    }

    #[test]
    fn parse_errors_keep_their_location_out_of_the_message() {
        let err = from_str::<serde_yaml::Value>("a: [1\n").unwrap_err();
        assert!(err.location().is_some());
        assert!(!err.message().contains(" at line "));
    }
}
