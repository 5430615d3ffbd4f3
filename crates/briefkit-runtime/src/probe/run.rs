//! The probe itself: send the brief's real request N times, record every call in the
//! ledger, and judge from the answers' usage whether the repeat was served from cache.
//!
//! The command file only parses arguments and renders the [`Report`] this returns, so the
//! loop (and its ledger rows) is the same for every front end.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;

use super::{Miss, Observed, Verdict, verdict};
use crate::brief::Brief;
use crate::cache::facts::{self, Facts};
use crate::cache::ledger::{Destination, Entry, Sinks};
use crate::error::Result;
use crate::prompt::compose::{ComposeOptions, compose, prefix};
use crate::prompt::measure::prefix_tokens;
use crate::provider::{CallOptions, Provider, Settings};
use crate::wire::Wire;
use crate::wire::{Message, Role};

/// What to probe.
pub struct Request<'a> {
    pub brief: &'a Brief,
    pub vars: &'a BTreeMap<String, String>,
    pub settings: Settings,
    /// Calls to make (the first may write the cache).
    pub repeat: u32,
    /// Send OpenAI's `prompt_cache_key` (derived from the prefix hash).
    pub cache_key: bool,
    pub ledger: Destination,
    /// The sinks the rows go through; the caller settles them when it is done.
    pub sinks: &'a Sinks,
    /// Told of every call as soon as it is recorded (call number, calls in all, its row),
    /// so a front end can show progress while a slow provider answers.
    pub on_call: &'a dyn Fn(u32, u32, &Entry),
}

/// One call: its ledger row, and its usage as the verdict reads it.
pub struct Call {
    pub entry: Entry,
    pub observed: Option<Observed>,
}

/// What the probe found.
pub struct Report {
    pub brief: String,
    pub tokenizer: String,
    pub settings: Settings,
    /// The model as the server named it, when it did.
    pub served_model: Option<String>,
    pub facts: &'static Facts,
    pub prefix_hash: String,
    pub prefix_tokens: u64,
    pub calls: Vec<Call>,
    pub verdict: Verdict,
    pub ledger: Destination,
    /// Calls that could not be written to the ledger, with why.
    pub unrecorded: Vec<String>,
}

/// Runs the probe. A failed call is returned as its error (exit 3) after it was recorded,
/// with which call it was and where it was recorded.
pub fn run(request: Request<'_>) -> Result<Report> {
    let Request {
        brief,
        vars,
        settings,
        repeat,
        cache_key,
        ledger: ledger_path,
        sinks,
        on_call,
    } = request;
    let composed = compose(brief, vars, ComposeOptions::default())?;
    let mut options = CallOptions::probe();
    // The prefix identity of what is sent, in the wire the provider speaks.
    let prefix_hash = composed.stable_prefix(settings.wire).hash;
    if cache_key && settings.wire == Wire::OpenAi {
        options.cache_key = Some(crate::wire::prefix::cache_key(&prefix_hash));
    }
    let mut prompt = composed.prompt;
    // The smallest turn that still makes a whole request: the prefix is what is measured.
    prompt.messages.push(Message {
        role: Role::User,
        content: "ping".into(),
    });
    let facts = facts::lookup(settings.wire.as_str(), &settings.model);
    let prefix_tok = prefix_tokens(brief, &prefix(brief, ComposeOptions::default())) as u64;
    // Before any call: a ledger that cannot be written is bad input, not a lost record.
    ledger_path.check(sinks)?;
    let brief_dir = brief
        .dir
        .canonicalize()
        .unwrap_or_else(|_| brief.dir.clone());
    let provider = Provider::new(settings.clone())?;

    let mut calls = Vec::new();
    let mut served_model = None;
    let mut unrecorded = Vec::new();
    for n in 1..=repeat {
        let started = Instant::now();
        let result = provider.call(&prompt, &options);
        // The ledger keeps the model asked for (what briefs and prices name); the server's
        // own name for it is shown in the report.
        let mut entry = Entry::new("probe", settings.wire.as_str(), &settings.model);
        entry.brief = Some(brief.manifest.name.clone());
        entry.brief_dir = Some(brief_dir.display().to_string());
        entry.prefix_hash = Some(prefix_hash.clone());
        let entry = entry.record(started.elapsed(), &result);
        on_call(n, repeat, &entry);
        if let Err(err) = ledger_path.record(sinks, &entry) {
            unrecorded.push(format!(
                "call {n} not recorded in the ledger: {}",
                err.message
            ));
        }
        match result {
            Ok(answer) => served_model = Some(answer.model),
            Err(mut err) => {
                err.details.extend(unrecorded);
                err.details.push(format!(
                    "call {n} of {repeat}; recorded in {} with status {}",
                    ledger_path.display(),
                    entry.status
                ));
                return Err(err);
            }
        }
        let observed = entry.input_tokens.map(|input_tokens| Observed {
            input_tokens,
            cached_input_tokens: entry.cached_input_tokens,
            cache_write_tokens: entry.cache_write_tokens,
        });
        calls.push(Call { entry, observed });
    }

    let observed: Vec<Option<Observed>> = calls.iter().map(|c| c.observed).collect();
    let tokenizer = brief.manifest.tokenizer.to_string();
    let verdict = verdict(&observed, facts, prefix_tok, &tokenizer);
    Ok(Report {
        brief: brief.manifest.name.clone(),
        tokenizer,
        settings,
        served_model,
        facts,
        prefix_hash,
        prefix_tokens: prefix_tok,
        calls,
        verdict,
        ledger: ledger_path,
        unrecorded,
    })
}

/// Cached over input, rounded to four places.
fn share(cached: Option<u64>, input: Option<u64>) -> Option<f64> {
    match (cached, input) {
        (Some(cached), Some(input)) if input > 0 => {
            Some(((cached as f64 / input as f64) * 10_000.0).round() / 10_000.0)
        }
        _ => None,
    }
}

/// `probe --json`, after `status` and `summary`.
#[derive(Serialize)]
pub struct Json<'a> {
    brief: &'a str,
    provider: &'static str,
    model: &'a str,
    served_model: Option<&'a str>,
    base_url: &'a str,
    prefix: PrefixJson<'a>,
    cache_facts: FactsJson,
    calls: Vec<CallJson>,
    verdict: VerdictJson,
    hint: Option<String>,
    ledger: String,
}

#[derive(Serialize)]
struct PrefixJson<'a> {
    hash: &'a str,
    tokens: u64,
    tokenizer: &'a str,
}

#[derive(Serialize)]
struct FactsJson {
    label: &'static str,
    min_cacheable_tokens: Option<u64>,
    cached_field: Option<&'static str>,
}

#[derive(Serialize)]
struct CallJson {
    call: usize,
    input_tokens: Option<u64>,
    cached_input_tokens: Option<u64>,
    cache_write_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cached_share: Option<f64>,
    latency_ms: u64,
    attempts: u32,
}

#[derive(Serialize)]
struct VerdictJson {
    cached: bool,
    reason: Option<&'static str>,
    cached_input_tokens: Option<u64>,
    cached_share: Option<f64>,
}

impl Report {
    /// `ok` when a repeat was served from cache, else `not_cached`.
    pub fn status(&self) -> &'static str {
        if self.verdict.cached() {
            "ok"
        } else {
            "not_cached"
        }
    }

    /// The verdict's reason word, `None` when cached.
    pub fn reason(&self) -> Option<&'static str> {
        match &self.verdict {
            Verdict::Cached { .. } => None,
            Verdict::NotCached(Miss::UnderMinimum { .. }) => Some("under_minimum"),
            Verdict::NotCached(Miss::NoCachedField { no_usage: true }) => Some("no_usage"),
            Verdict::NotCached(Miss::NoCachedField { no_usage: false }) => Some("no_cached_field"),
            Verdict::NotCached(Miss::NotServedAgain { .. }) => Some("not_served_again"),
        }
    }

    /// The JSON document's fields; `hint` is the front end's advice, in its own words.
    pub fn json(&self, hint: Option<String>) -> Json<'_> {
        let (tokens, share_of_input) = match &self.verdict {
            Verdict::Cached { tokens, share, .. } => {
                (Some(*tokens), Some((share * 10_000.0).round() / 10_000.0))
            }
            Verdict::NotCached(_) => (None, None),
        };
        Json {
            brief: &self.brief,
            provider: self.settings.wire.as_str(),
            model: &self.settings.model,
            served_model: self.served_model.as_deref(),
            base_url: &self.settings.base_url,
            prefix: PrefixJson {
                hash: &self.prefix_hash,
                tokens: self.prefix_tokens,
                tokenizer: &self.tokenizer,
            },
            cache_facts: FactsJson {
                label: self.facts.label,
                min_cacheable_tokens: self.facts.min_cacheable_tokens,
                cached_field: self.facts.cached_field,
            },
            calls: self
                .calls
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let e = &c.entry;
                    CallJson {
                        call: i + 1,
                        input_tokens: e.input_tokens,
                        cached_input_tokens: e.cached_input_tokens,
                        cache_write_tokens: e.cache_write_tokens,
                        output_tokens: e.output_tokens,
                        cached_share: share(e.cached_input_tokens, e.input_tokens),
                        latency_ms: e.latency_ms,
                        attempts: e.attempts,
                    }
                })
                .collect(),
            verdict: VerdictJson {
                cached: self.verdict.cached(),
                reason: self.reason(),
                cached_input_tokens: tokens,
                cached_share: share_of_input,
            },
            hint,
            ledger: self.ledger.display(),
        }
    }
}
