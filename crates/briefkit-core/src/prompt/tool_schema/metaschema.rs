//! A tool's input schema against the JSON Schema metaschema of its draft (`$schema`, else
//! 2020-12, the draft the providers document), with `boon`; nothing outside the schema is
//! ever loaded, since the provider receives the schema alone.

use serde_json::Value;

use super::{RejectedBy, SchemaProblem, Step, problem};

/// The schema against its draft's metaschema. Problems already reported by the checks
/// above (a `type` that is not a type) are left out.
pub(super) fn check(schema: &Value, root: &[Step], out: &mut Vec<SchemaProblem>) {
    const URL: &str = "urn:briefkit:tool-input-schema";
    let mut compiler = boon::Compiler::new();
    compiler.set_default_draft(boon::Draft::V2020_12);
    // Nothing is loaded from outside the schema: the provider sees this document alone.
    compiler.use_loader(Box::new(NoLoader));
    if let Err(err) = compiler.add_resource(URL, schema.clone()) {
        out.push(problem(root.to_vec(), RejectedBy::Every, err.to_string()));
        return;
    }
    let mut schemas = boon::Schemas::new();
    let Err(err) = compiler.compile(URL, &mut schemas) else {
        return;
    };
    let known: Vec<Vec<Step>> = out.iter().map(|p| p.path.clone()).collect();
    let mut found = Vec::new();
    match &err {
        boon::CompileError::ValidationError { src, .. } => leaves(src, &mut found),
        boon::CompileError::LoadUrlError { url, .. }
        | boon::CompileError::UnsupportedUrlScheme { url } => found.push((
            pointer_of(url),
            format!(
                "`{url}` cannot be resolved: a provider receives this schema alone; define it under `$defs` and refer to `#/$defs/…`"
            ),
        )),
        boon::CompileError::InvalidRegex { url, regex, .. } => found.push((
            pointer_of(url),
            format!("`{regex}` is not a valid regular expression"),
        )),
        other => found.push((Vec::new(), format!("{other}"))),
    }
    for (steps, message) in found {
        let mut path = root.to_vec();
        path.extend(steps);
        // A bad `type` is reported once, with the check's clearer words.
        if known
            .iter()
            .any(|k| path.starts_with(k) || k.starts_with(&path))
        {
            continue;
        }
        let keyword = match path.last() {
            Some(Step::Key(k)) => format!("`{k}`: "),
            _ => String::new(),
        };
        out.push(problem(
            path,
            RejectedBy::Every,
            format!("not valid JSON Schema: {keyword}{}", one_line(&message)),
        ));
    }
}

/// A message of several lines (a regex parser's, with a caret under the pattern) as one:
/// its first line and its last, which says what is wrong.
fn one_line(message: &str) -> String {
    let lines: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    match lines.as_slice() {
        [] => String::new(),
        [one] => (*one).to_string(),
        [first, .., last] => format!(
            "{} {}",
            first.trim_end_matches("regex parse error:").trim_end(),
            last.trim_start_matches("error: ")
        ),
    }
}

/// The deepest errors of a metaschema validation: where the schema is wrong, not the chain
/// of keywords that led there.
fn leaves(err: &boon::ValidationError, out: &mut Vec<(Vec<Step>, String)>) {
    if err.causes.is_empty() {
        let steps = err
            .instance_location
            .tokens
            .iter()
            .map(|t| match t {
                boon::InstanceToken::Prop(p) => Step::Key(p.to_string()),
                boon::InstanceToken::Item(i) => Step::Index(*i),
            })
            .collect();
        let message = err.kind.to_string();
        if !out.iter().any(|(s, m)| *s == steps && *m == message) {
            out.push((steps, message));
        }
        return;
    }
    for cause in &err.causes {
        leaves(cause, out);
    }
}

/// The JSON pointer in a URL's fragment as steps (`…#/properties/a` → properties, a).
fn pointer_of(url: &str) -> Vec<Step> {
    let Some((_, fragment)) = url.split_once('#') else {
        return Vec::new();
    };
    fragment
        .split('/')
        .skip(1)
        .map(|t| {
            let t = percent_decode(t).replace("~1", "/").replace("~0", "~");
            match t.parse::<usize>() {
                Ok(i) => Step::Index(i),
                Err(_) => Step::Key(t),
            }
        })
        .collect()
}

/// `%24defs` as `$defs`: URL fragments escape such characters.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied(),
            bytes.get(i + 2).copied(),
        ) {
            (b'%', Some(h), Some(l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

struct NoLoader;

impl boon::UrlLoader for NoLoader {
    fn load(&self, url: &str) -> Result<Value, Box<dyn std::error::Error>> {
        Err(format!("{url}: not loaded (a tool schema is checked on its own)").into())
    }
}
