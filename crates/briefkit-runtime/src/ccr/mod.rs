//! Reversible compression (CCR: compress, cache, retrieve): a compact text stands in the
//! prompt while the original stays recoverable, by hash, from a local SQLite store.
//!
//! Why it is built this way (each point answers a failure seen in the field):
//! - **One hash everywhere** ([`hash`]): the first 24 lowercase hex characters of the
//!   SHA-256 of the original bytes. Digest markers, `brief ccr`, session references and the
//!   MCP `retrieve` tool all use [`hash`] and [`parse_hash`], so a marker can never name a
//!   key the store does not use. Look-ups take upper case (models echo hashes so) and the
//!   full 64 characters.
//! - **The strategy is recorded, not guessed** ([`Strategy`]): every entry says which path
//!   produced it. Nothing routes or explains an entry by looking at the payload's shape.
//! - **Persistent by default** ([`path::resolve`]): the user's state directory, so a
//!   restart or another working directory never loses the originals.
//! - **Expired is never unknown** ([`Lookup::Expired`]): collecting an expired original
//!   leaves a tombstone (hash, strategy, expiry), so a caller learns to regenerate the
//!   digest or re-read the source instead of retrying a dead hash.
//! - **A TTL sized for long autonomous runs** ([`ttl`]), settable and visible in `stats`.
//!
//! The library API other modules call is [`Store`] (`open`, `put`, `get`, `stats`, `gc`);
//! `digest` renders a wake digest whose bulky sections are backed by the store.

mod by_hand;
pub mod digest;
mod maintenance;
mod overview;
pub mod path;
mod schema;
mod store;
mod strategy;
pub mod ttl;

pub use by_hand::{
    EXPIRED_ADVICE, Expired, Found, Original, Put, RecordShown, Retrieved, UNKNOWN_ADVICE, Unknown,
    put, retrieve,
};
pub use maintenance::{Stats, StrategyStats, Swept};
pub use overview::{Collected, Overview, collect, overview};
pub use store::{Entry, Lookup, Record, Store, Stored, Tombstone};

pub use strategy::Strategy;

use crate::error::{Error, Result};

/// Length of a CCR hash in hex characters (96 bits: collisions stay out of reach for any
/// store a person or an agent fleet will ever fill).
pub const HASH_LEN: usize = 24;

/// The CCR hash of some original bytes: the first 24 lowercase hex characters of their
/// SHA-256.
pub fn hash(original: &[u8]) -> String {
    let mut full = crate::wire::canonical::sha256_hex(original);
    full.truncate(HASH_LEN);
    full
}

/// A hash as a caller typed it, normalised for look-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HashQuery {
    /// The 24-character key, lowercase.
    pub key: String,
    /// The full 64-character SHA-256 when the caller gave it: the entry must match all of it.
    pub full: Option<String>,
}

/// Parses a hash for look-up: 24 or 64 hex characters in any case, optionally written as a
/// marker's `ccr:HASH`. Anything else is bad input (an error naming what was expected).
pub fn parse_hash(text: &str) -> Result<HashQuery> {
    let trimmed = text.trim();
    let bare = trimmed
        .strip_prefix("ccr:")
        .or_else(|| trimmed.strip_prefix("CCR:"))
        .unwrap_or(trimmed);
    let is_hex = !bare.is_empty() && bare.bytes().all(|b| b.is_ascii_hexdigit());
    if !is_hex || (bare.len() != HASH_LEN && bare.len() != 64) {
        return Err(Error::input(format!(
            "`{}` is not a CCR hash",
            clip(trimmed, 80)
        ))
        .with_hint("a CCR hash is 24 hex characters (or the full 64 of the SHA-256), as in a `[ccr:HASH …]` marker"));
    }
    let lower = bare.to_ascii_lowercase();
    Ok(HashQuery {
        key: lower[..HASH_LEN].to_string(),
        full: (lower.len() == 64).then_some(lower),
    })
}

/// At most `max` characters of `text`, with `…` when cut (for messages quoting input).
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

pub use crate::numbers::thousands;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_the_first_24_hex_of_sha256() {
        // sha256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
        assert_eq!(hash(b"abc"), "ba7816bf8f01cfea414140de");
        assert_eq!(hash(b"").len(), HASH_LEN);
    }

    #[test]
    fn lookups_take_upper_case_full_length_and_marker_form() {
        let key = "ba7816bf8f01cfea414140de";
        assert_eq!(parse_hash(key).unwrap().key, key);
        assert_eq!(parse_hash(&key.to_uppercase()).unwrap().key, key);
        assert_eq!(parse_hash(&format!("ccr:{key}")).unwrap().key, key);
        let full = "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD";
        let query = parse_hash(full).unwrap();
        assert_eq!(query.key, key);
        assert_eq!(query.full.as_deref(), Some(&*full.to_lowercase()));
    }

    #[test]
    fn other_lengths_and_non_hex_are_refused() {
        for bad in [
            "",
            "abc",
            "ba7816bf8f01",
            "ba7816bf8f01cfea414140dz",
            "ba7816bf8f01cfea414140de0",
        ] {
            let err = parse_hash(bad).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{bad}");
        }
    }
}
