//! The MCP tools: their names, descriptions and input schemas in one fixed order, and what
//! each does — a call into the same library code the matching CLI command uses.
//!
//! The order never changes between calls or runs: a client puts the tool list near the
//! start of its prompt, and a list that reorders itself breaks that prompt's cache.
//! Arguments are checked here; a bad one is a [`ToolError`] with a message the model can
//! act on, never a panic.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::brief::Brief;
use crate::ccr::{self, Lookup, Store, Strategy};
use crate::clock::format_rfc3339;
use crate::prompt::compose::{ComposeOptions, compose};
use crate::prompt::render::{Format, RenderOptions, render};

/// What the operator who started the server decided: the provider settings of the tools
/// that call a model (`brief mcp`'s flags), including the base URLs a tool call may name,
/// and the directory relative paths are resolved against (`--root`). Tool arguments come
/// from the client, which may be a model following injected text: they never widen these.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub provider: crate::provider::Overrides,
    /// `brief mcp --root DIR`, by default the directory the server was started in (a
    /// desktop client may start it in `/`).
    pub root: PathBuf,
}

/// What a tool runs with.
pub type Context = Options;

impl Options {
    /// `path` made absolute against the root, so every error names the path it tried.
    pub fn path(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.root.join(path)
        }
    }
}

/// A tool call that could not be done, with the reason in words.
#[derive(Debug)]
pub struct ToolError(pub String);

impl From<crate::error::Error> for ToolError {
    fn from(err: crate::error::Error) -> Self {
        let hint = hint(&err).or(err.hint.as_deref().and_then(for_a_model));
        let mut message = err.message;
        for detail in err.details {
            message.push_str("\n  ");
            message.push_str(&detail);
        }
        if let Some(hint) = hint {
            message.push_str("\nhint: ");
            message.push_str(&hint);
        }
        ToolError(message)
    }
}

/// What an MCP caller can do about an error, in this edge's words: its tool arguments,
/// and the server's operator for what only the operator decides (flags, environment).
fn hint(err: &crate::error::Error) -> Option<String> {
    use crate::error::{Origin, Setting, Topic};
    Some(match err.topic()? {
        Topic::NoModel { wire } => format!(
            "name `model` (and `provider`) in the tool call; or the server's operator names \
             a model when starting it, or sets `model: {{ provider: {wire}, name: NAME }}` in \
             the session brief's brief.yaml"
        ),
        Topic::NoApiKey { wire } => format!(
            "the server's operator sets {} in the server's environment (the MCP client's \
             configuration); keys are read only from the environment",
            wire.key_var()
        ),
        Topic::BadBaseUrl {
            from: Origin::Caller,
            ..
        } => "give `base_url` as an http(s) URL, or leave it out to use the server's".into(),
        Topic::BadBaseUrl { wire, from } => format!(
            "the server's operator fixes {}",
            match from {
                Origin::Brief => "`model.base_url` in the session brief's brief.yaml".into(),
                Origin::Environment =>
                    format!("{} in the server's environment", wire.base_url_var()),
                _ => "the base URL the server was started with".to_string(),
            }
        ),
        Topic::BaseUrlNotAllowed { url } => format!(
            "leave `base_url` out to use the server's configured provider; the server's \
             operator can allow this one by starting it with `brief mcp --allow-base-url {url}`"
        ),
        Topic::Unreachable { wire } => format!(
            "the server's configured provider did not answer; its operator checks the base \
             URL the server was given (or its {}) and the network",
            wire.base_url_var()
        ),
        Topic::IdleTimeout { after } => format!(
            "nothing was written; the server's operator can allow a silent provider longer \
             than {} ({} in the server's environment)",
            crate::clock::format_duration(*after),
            crate::provider::TIMEOUT_VAR
        ),
        Topic::MissingVars { names } => {
            let fields: Vec<String> = names.iter().map(|n| format!("\"{n}\": \"…\"")).collect();
            format!("give a value for each in `vars`: {{{}}}", fields.join(", "))
        }
        Topic::NoBrief { .. } => {
            "name a brief directory (one that holds brief.yaml), as a path the server can read"
                .into()
        }
        Topic::NoSession => {
            "name a session directory (one `brief session new` made), as a path the server \
             can read"
                .into()
        }
        Topic::SessionFull => {
            "the session is full: its operator starts a new one for this agent; nothing was \
             appended"
                .into()
        }
        Topic::PurgeBoth { ids: [a, b] } => format!("purge both: \"ids\": [\"{a}\", \"{b}\"]"),
        Topic::NotPending => "`session_status` lists the pending operations".into(),
        // The versions and proposals of a brief are its operator's, through the CLI.
        Topic::Store(_) | Topic::Count(_) => return None,
        Topic::Setting(setting) => {
            let place = match setting {
                Setting::CcrStore => "BRIEF_CCR_PATH in the server's environment",
                Setting::Ledger => "BRIEF_LEDGER in the server's environment",
                Setting::AlignState => "the server's configuration",
            };
            match err.hint.as_deref() {
                Some(domain) => format!("{domain}; the server's operator sets it with {place}"),
                None => format!("the server's operator sets {place}"),
            }
        }
    })
}

/// A hint written for the command line, in words a model calling a tool can act on when
/// no topic of the error says more: a command line is left out (the model has no shell).
fn for_a_model(hint: &str) -> Option<String> {
    let cli = hint.contains("`brief ")
        || hint.contains("brief session")
        || hint.split_whitespace().any(|w| w.starts_with("--"));
    (!cli).then(|| hint.to_string())
}

pub struct Spec {
    pub name: &'static str,
    pub description: &'static str,
    pub schema: Value,
}

/// Every tool, in the order `tools/list` gives them.
pub fn specs() -> Vec<Spec> {
    let mut specs = vec![
        Spec {
            name: "retrieve",
            description: "Get back the original that a CCR marker's hash stands for. Answers \
                with the original, or says it expired (with the strategy it was stored by) \
                or was never stored. Hashes are 24 hex characters or the full 64, any case.",
            schema: json!({
                "type": "object",
                "properties": {
                    "hash": {"type": "string", "description": "The CCR hash, e.g. from a `[ccr:HASH …]` marker"}
                },
                "required": ["hash"],
                "additionalProperties": false
            }),
        },
        Spec {
            name: "compose",
            description: "Compose a brief (a directory with brief.yaml) into its system \
                prompt, or into an OpenAI or Anthropic request body; reports the stable \
                prefix hash.",
            schema: json!({
                "type": "object",
                "properties": {
                    "brief": {"type": "string", "description": "Path of the brief directory (or its brief.yaml)"},
                    "vars": {
                        "type": "object",
                        "additionalProperties": {"type": "string"},
                        "description": "Values for {{KEY}} placeholders in volatile items"
                    },
                    "format": {"type": "string", "enum": ["text", "openai", "anthropic"], "default": "text"}
                },
                "required": ["brief"],
                "additionalProperties": false
            }),
        },
        Spec {
            name: "guard",
            description: "Check that every fact of an original text (prices, numbers and \
                number words, dates, URLs, e-mail addresses, placeholders, code, \
                identifiers) survives in a rewrite, that no value lost its binding and no \
                constraint flipped (changed), and that every instruction of the original \
                has a counterpart (dropped_instructions); status is clean or flagged, as \
                `brief guard --json` prints it, with the share of instructions kept and the \
                size ratio in coverage.",
            schema: json!({
                "type": "object",
                "properties": {
                    "original": {"type": "string"},
                    "proposal": {"type": "string"}
                },
                "required": ["original", "proposal"],
                "additionalProperties": false
            }),
        },
    ];
    specs.extend(super::session_tools::specs());
    specs.extend(super::work_tools::specs());
    specs
}

/// Runs one tool. `Err` is a tool error (bad arguments or a failure the caller can fix).
pub fn call(ctx: &Context, name: &str, arguments: Value) -> Result<Value, ToolError> {
    match name {
        "retrieve" => retrieve(args(arguments)?),
        "compose" => compose_tool(ctx, args(arguments)?),
        "guard" => guard(args(arguments)?),
        "compress" | "digest" | "ccr_put" => super::work_tools::call(ctx, name, arguments),
        other => super::session_tools::call(ctx, other, arguments),
    }
}

/// Reads a tool's arguments into its typed form; unknown or missing fields are named.
pub fn args<T: for<'de> Deserialize<'de>>(arguments: Value) -> Result<T, ToolError> {
    let arguments = if arguments.is_null() {
        json!({})
    } else {
        arguments
    };
    serde_json::from_value(arguments).map_err(|e| ToolError(format!("bad arguments: {e}")))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RetrieveArgs {
    hash: String,
}

fn retrieve(a: RetrieveArgs) -> Result<Value, ToolError> {
    let query = ccr::parse_hash(&a.hash)?;
    let path = ccr::path::resolve(None)?;
    let lookup = match Store::open_existing(&path)? {
        Some(store) => store.get(&query)?,
        None => Lookup::Unknown,
    };
    match lookup {
        Lookup::Found(entry) => report(Retrieved {
            status: "found",
            summary: format!(
                "ccr:{} found: {} bytes ({})",
                entry.hash, entry.original_bytes, entry.strategy
            ),
            expires: Some(format_rfc3339(entry.expires_ms)),
            original: Some(String::from_utf8_lossy(&entry.original).into_owned()),
            records: Some(ccr::records_json(&entry.records)),
            hash: entry.hash,
            strategy: Some(entry.strategy),
            source: Some(entry.source),
            ..Retrieved::default()
        }),
        Lookup::Expired(tomb) => report(Retrieved {
            status: "expired",
            summary: format!(
                "ccr:{} expired at {}; it was stored by strategy {} from {}",
                tomb.hash,
                format_rfc3339(tomb.expires_ms),
                tomb.strategy,
                tomb.source
            ),
            expired_at: Some(format_rfc3339(tomb.expires_ms)),
            collected: Some(tomb.collected),
            awaiting_gc: Some(!tomb.collected),
            advice: Some(
                "do not retry this hash: regenerate the digest or re-read the source it came from",
            ),
            hash: tomb.hash,
            strategy: Some(tomb.strategy),
            source: Some(tomb.source),
            ..Retrieved::default()
        }),
        Lookup::Unknown => report(Retrieved {
            status: "unknown",
            summary: format!("ccr:{} was never stored here", query.key),
            hash: query.key,
            advice: Some(
                "check the hash against the marker; re-read the source if it is not in this store",
            ),
            ..Retrieved::default()
        }),
    }
}

/// The `retrieve` tool's answer: found, expired or unknown, with the fields of each.
#[derive(Default, Serialize)]
struct Retrieved {
    status: &'static str,
    summary: String,
    hash: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    strategy: Option<Strategy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expires: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    original: Option<String>,
    /// Every strategy the original was stored under.
    #[serde(skip_serializing_if = "Option::is_none")]
    records: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expired_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    collected: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    awaiting_gc: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    advice: Option<&'static str>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ComposeArgs {
    brief: PathBuf,
    #[serde(default)]
    vars: BTreeMap<String, String>,
    #[serde(default)]
    format: Option<String>,
}

fn compose_tool(ctx: &Context, a: ComposeArgs) -> Result<Value, ToolError> {
    let name = a.format.as_deref().unwrap_or("text");
    let Some(format) = Format::parse(name) else {
        return Err(ToolError(format!(
            "bad arguments: format `{name}` is not one of text, openai, anthropic"
        )));
    };
    let brief = Brief::load(&ctx.path(&a.brief))?;
    let composed = compose(&brief, &a.vars, ComposeOptions::default())?;
    // The same operation `brief compose` prints: the text, or the body as the bytes sent,
    // and the prefix hash of that body's wire.
    let rendered = render(
        &brief,
        &composed,
        RenderOptions {
            format,
            cache_key: false,
            hashes: true,
        },
    );
    let prefix_hash = rendered.hashes.map(|h| h.prefix).unwrap_or_default();
    report(Composition {
        status: "ok",
        summary: format!(
            "{} composed as {name}: {} bytes, stable prefix {prefix_hash}",
            brief.manifest.name,
            rendered.output.len()
        ),
        format: format.as_str(),
        prefix_hash,
        unused_vars: composed.unused_vars,
        output: rendered.output,
    })
}

/// The `compose` tool's answer.
#[derive(Serialize)]
struct Composition {
    status: &'static str,
    summary: String,
    format: &'static str,
    prefix_hash: String,
    unused_vars: Vec<String>,
    /// What `brief compose` prints: the text, or the body as the bytes sent.
    output: String,
}

/// A typed answer as the tool's structured content.
fn report<T: Serialize>(answer: T) -> Result<Value, ToolError> {
    serde_json::to_value(answer).map_err(|e| ToolError(format!("cannot render the answer: {e}")))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GuardArgs {
    original: String,
    proposal: String,
}

fn guard(a: GuardArgs) -> Result<Value, ToolError> {
    let report = crate::guard::check(&a.original, &a.proposal);
    Ok(crate::guard::to_json(&report))
}
