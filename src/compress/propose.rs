//! One compression as a library operation: ask the model for each part of an item, record
//! every call in the ledger, build the proposal (cleaned, guarded, counted) and save it.
//! Nothing else is written: the item changes only when a human accepts the proposal. The
//! MCP `compress` tool calls this; the command line runs the same steps with its terminal
//! around them (interruptible calls, review).

use std::path::PathBuf;
use std::time::Instant;

use super::{CallSettings, Compressor};
use crate::brief::{Brief, Item};
use crate::cache::ledger;
use crate::error::Result;
use crate::provider::{self, CallOptions, Settings};
use crate::store::proposals::{self, Proposal};

/// Compresses `item` into a saved proposal (see the module documentation).
pub fn propose(
    brief: &Brief,
    item: &Item,
    compressor: &Compressor,
    settings: &Settings,
    options: &CallOptions,
    ledger_path: Option<PathBuf>,
) -> Result<(Proposal, PathBuf)> {
    if let Some(refusal) = super::refusal(item, &brief.dir) {
        return Err(refusal);
    }
    let ledger_path = ledger::resolve_path(ledger_path);
    ledger::check_path(&ledger_path)?;
    let mut answers = Vec::new();
    for prompt in super::prompts(compressor, item) {
        let started = Instant::now();
        let result = provider::call(settings, &prompt, options);
        let entry = ledger::Entry::new("compress", settings.wire.as_str(), &settings.model)
            .for_brief(
                &compressor.name,
                compressor.dir.as_deref(),
                &compressor.hash,
            )
            .targeting(&brief.manifest.name, &brief.dir, &item.id)
            .record(started.elapsed(), &result);
        // A ledger that cannot be written never loses the proposal.
        let _ = ledger::append(&ledger_path, &entry);
        answers.push(result?);
    }
    let call = CallSettings {
        temperature: options.temperature,
        max_tokens: options.max_tokens,
        compressor: compressor.source.clone(),
        compressor_name: compressor.name.clone(),
    };
    let proposal = super::build(
        brief,
        item,
        &compressor.hash,
        settings.wire.as_str(),
        call,
        &answers,
    )?;
    let path = proposals::save(&brief.dir, &proposal)?;
    Ok((proposal, path))
}
