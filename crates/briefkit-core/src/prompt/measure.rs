//! Token figures of a composed brief, counted only when a caller asks for one.
//!
//! Counting loads a tokenizer vocabulary (tens of milliseconds), so commands that print no
//! token figure never come here; and a budget check first tries the free bound that a
//! text never has more tokens than bytes.

use crate::brief::{Brief, Tier};
use crate::prompt::compose::{ComposeOptions, Prefix, item_text, tools_json};
use crate::tokens;

/// Tokens of the stable prefix: the static system text plus the tools' JSON.
pub fn prefix_tokens(brief: &Brief, prefix: &Prefix) -> usize {
    let encoding = brief.manifest.tokenizer;
    let mut total = prefix.static_tokens(encoding);
    if !prefix.tools.is_empty() {
        total += tokens::count(encoding, &tools_json(&prefix.tools));
    }
    total
}

/// The volatile items' text as written (placeholders unfilled).
pub fn volatile_template(brief: &Brief, options: ComposeOptions) -> String {
    let mut unproven = Vec::new();
    brief
        .items
        .iter()
        .filter(|item| item.tier == Tier::Volatile)
        .map(|item| item_text(item, options.compact, &mut unproven))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Whether the composed brief (prefix plus volatile templates) is over `limit` tokens.
/// Returns the token count when it had to count, `None` when the byte size alone proved
/// the brief is within the limit.
pub fn over_budget(
    brief: &Brief,
    prefix: &Prefix,
    options: ComposeOptions,
    limit: u64,
) -> Option<(bool, usize)> {
    let volatile = volatile_template(brief, options);
    let bytes = prefix.hashes.prefix_bytes() + volatile.len();
    if (bytes as u64) <= limit {
        return None;
    }
    let total = prefix_tokens(brief, prefix) + tokens::count(brief.manifest.tokenizer, &volatile);
    Some((total as u64 > limit, total))
}
