//! Turning a model's answer into a proposal: cleaned, checked by the guard, counted, with
//! the call's provider, model and settings kept beside it. The command only renders it.

use crate::brief::{Brief, Item};
use crate::clock::Stamp;
use crate::error::{Error, Result};
use crate::guard;
use crate::provider::Answer;
use crate::store::history::History;
use crate::store::proposals::{self, CallUsage, Proposal};
use crate::tokens;

pub use crate::store::proposals::CallSettings;

/// The proposal for `item` from `answer`, not yet saved. Refused (nothing is saved) when the
/// answer holds an API key, or holds no text once it is cleaned.
pub fn build(
    brief: &Brief,
    item: &Item,
    compressor_hash: &str,
    provider: &str,
    settings: CallSettings,
    answer: &Answer,
) -> Result<Proposal> {
    if answer.contains_key {
        // Flagged, never saved: a proposal is shown, stored and maybe committed.
        return Err(Error::failed(format!(
            "{}'s answer contains the API key (as sent, or changed: case, URL- or base64-encoding): nothing saved",
            answer.model
        ))
        .with_hint("the server echoed your key into the answer; revoke the key if it was not a local test server"));
    }
    let body = super::sanitize(&answer.text, item.body());
    if body.trim().is_empty() {
        return Err(Error::provider(format!(
            "{} answered with no text once escapes and control characters were removed: nothing saved",
            answer.model
        )));
    }
    let history = History::load(&brief.dir, &item.id)?;
    let encoding = brief.manifest.tokenizer;
    let now = Stamp::now();
    let usage = answer
        .usage
        .clone()
        .map_or_else(CallUsage::default, |u| CallUsage {
            input_tokens: u.input_tokens,
            cached_input_tokens: u.cached_input_tokens.unwrap_or(0),
            cache_write_tokens: u.cache_write_tokens.unwrap_or(0),
            output_tokens: u.output_tokens,
        });
    Ok(Proposal {
        id: proposals::new_id(&item.id, &now),
        item: item.id.clone(),
        base_sha256: crate::prompt::canonical::sha256_hex(item.body().as_bytes()),
        base_version: history.latest().map(|v| v.meta.version),
        created: now.rfc3339(),
        provider: provider.to_string(),
        model: answer.model.clone(),
        compressor: compressor_hash.to_string(),
        settings: Some(settings),
        usage,
        tokens_before: tokens::count(encoding, item.body()),
        tokens_after: tokens::count(encoding, &body),
        guard: guard::check(item.body(), &body),
        body,
    })
}

/// `(status, summary)` of a proposal against the item's body: `identical`, `flagged`,
/// `longer` or `clean`.
pub fn status(item: &Item, proposal: &Proposal) -> (&'static str, String) {
    let change = token_change(proposal.tokens_before, proposal.tokens_after);
    let guard = proposal.guard.summary();
    if proposal.body == item.body() {
        (
            "identical",
            format!(
                "`{}`: the proposal is identical to the current body; guard {guard}",
                item.id
            ),
        )
    } else if !proposal.guard.is_clean() {
        ("flagged", format!("`{}`: {change}; guard {guard}", item.id))
    } else if proposal.tokens_after >= proposal.tokens_before {
        (
            "longer",
            format!(
                "`{}`: the proposal is not shorter ({change}); guard {guard}",
                item.id
            ),
        )
    } else {
        ("clean", format!("`{}`: {change}; guard {guard}", item.id))
    }
}

/// `42 → 30 tokens (−28.6%)`
pub fn token_change(before: usize, after: usize) -> String {
    if before == 0 {
        return format!("{before} → {after} tokens");
    }
    let change = (after as f64 - before as f64) / before as f64 * 100.0;
    let sign = if change < 0.0 { "−" } else { "+" };
    format!("{before} → {after} tokens ({sign}{:.1}%)", change.abs())
}
