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

/// The proposal for `item` from the answers to [`super::prompts`] (one for a Markdown
/// body, one per message of a conversation sample, in order), not yet saved. Refused
/// (nothing is saved) when an answer holds an API key, or holds no text once it is cleaned.
pub fn build(
    brief: &Brief,
    item: &Item,
    compressor_hash: &str,
    provider: &str,
    settings: CallSettings,
    answers: &[Answer],
) -> Result<Proposal> {
    let Some(answer) = answers.first() else {
        return Err(Error::provider("no answer to build a proposal from"));
    };
    if let Some(answer) = answers.iter().find(|a| a.contains_key) {
        // Flagged, never saved: a proposal is shown, stored and maybe committed.
        return Err(Error::failed(format!(
            "{}'s answer contains the API key (as sent, or changed: case, URL- or base64-encoding): nothing saved",
            answer.model
        ))
        .with_hint("the server echoed your key into the answer; revoke the key if it was not a local test server"));
    }
    let empty = |answer: &Answer| {
        Error::provider(format!(
            "{} answered with no text once escapes and control characters were removed: nothing saved",
            answer.model
        ))
    };
    let body = match item.messages() {
        None => super::sanitize(&answer.text, item.body()),
        Some(messages) => {
            if answers.len() != messages.len() {
                return Err(Error::provider(format!(
                    "{} answers for the {} messages of `{}`: nothing saved",
                    answers.len(),
                    messages.len(),
                    item.id
                )));
            }
            let mut contents = Vec::with_capacity(messages.len());
            for (message, answer) in messages.iter().zip(answers) {
                let content = super::sanitize(&answer.text, &message.content);
                if content.trim().is_empty() {
                    return Err(empty(answer));
                }
                contents.push(content);
            }
            crate::brief::sample::to_body(
                messages
                    .iter()
                    .zip(&contents)
                    .map(|(m, c)| (m.role, c.as_str())),
            )
        }
    };
    if body.trim().is_empty() {
        return Err(empty(answer));
    }
    let history = History::load(&brief.dir, &item.id)?;
    let encoding = brief.manifest.tokenizer;
    let now = Stamp::now();
    // One call per message of a conversation sample: their usage adds up.
    let mut usage = CallUsage::default();
    for u in answers.iter().filter_map(|a| a.usage.as_ref()) {
        usage.input_tokens += u.input_tokens;
        usage.cached_input_tokens = add_known(usage.cached_input_tokens, u.cached_input_tokens);
        usage.cache_write_tokens = add_known(usage.cache_write_tokens, u.cache_write_tokens);
        usage.output_tokens += u.output_tokens;
    }
    Ok(Proposal {
        id: proposals::new_id(&item.id, &now),
        item: item.id.clone(),
        base_sha256: crate::wire::canonical::sha256_hex(item.body().as_bytes()),
        base_version: history.latest().map(|v| v.meta.version),
        created: now.rfc3339(),
        provider: provider.to_string(),
        model: answer.model.clone(),
        compressor: compressor_hash.to_string(),
        settings: Some(settings),
        usage,
        tokens_before: tokens::count(encoding, item.body()),
        tokens_after: tokens::count(encoding, &body),
        guard: guard::check_item(item, &body)?,
        body,
    })
}

/// Runs the guard again on a pending proposal against the item's current body, replacing
/// the report stored in the proposal file (plain text: it may be older than the guard, or
/// edited). Every command that shows or acts on a proposal (`compress`, `proposals`,
/// `review`, `accept`) judges it this way, so they agree. A body the guard refuses (a
/// conversation sample that lost a message) keeps its stored report here; `review` and
/// `accept` report the refusal.
pub fn rejudge(item: &Item, proposal: &mut Proposal) -> Result<()> {
    proposal.guard = guard::check_item(item, &proposal.body)?;
    Ok(())
}

/// `(status, summary)` of a proposal against the item's body: `identical`, `flagged`,
/// `review` (findings to look at, none sure enough to block), `longer` or `clean`, from
/// the proposal's guard report (see [`rejudge`]).
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
    } else if proposal.guard.is_flagged() {
        ("flagged", format!("`{}`: {change}; guard {guard}", item.id))
    } else if !proposal.guard.is_clean() {
        ("review", format!("`{}`: {change}; guard {guard}", item.id))
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
    if before == after {
        return format!("{before} → {after} tokens (no change)");
    }
    let change = (after as f64 - before as f64) / before as f64 * 100.0;
    let sign = if change < 0.0 { "−" } else { "+" };
    format!("{before} → {after} tokens ({sign}{:.1}%)", change.abs())
}

/// Adds a figure the provider may not have reported: unknown only while no call reported it.
fn add_known(total: Option<u64>, more: Option<u64>) -> Option<u64> {
    match (total, more) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
    }
}
