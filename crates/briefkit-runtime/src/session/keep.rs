//! Originals of what a purge or a compaction removed, kept also in the CCR store
//! (strategies `session_purge` and `session_compact`), so that `brief ccr get` and the MCP
//! `retrieve` tool can return them by hash, as for every other compressed text. The log
//! keeps them anyway (`brief session show`); the store is a convenience, so a store that
//! cannot be opened or written never fails the purge: the operator is told instead.

use super::Session;
use super::log::Entry;
use super::render::entry_line;
use crate::ccr::{Store, Strategy};

impl Session {
    /// Puts the removed entries (their transcript lines) with the text that replaced them;
    /// the hash, or `None` with a notice.
    pub(super) fn keep_originals(
        &self,
        strategy: Strategy,
        removed: &[&Entry],
        replacement: &str,
    ) -> Option<String> {
        let original = removed
            .iter()
            .map(|e| entry_line(e))
            .collect::<Vec<_>>()
            .join("\n");
        let source = format!("session {}", self.ledger_key());
        let kept = Store::open_default(None).and_then(|store| {
            store.without_token_counts().put(
                original.as_bytes(),
                replacement,
                strategy,
                &source,
                None,
            )
        });
        match kept {
            Ok(stored) => Some(stored.hash),
            Err(err) => {
                self.notice(format!(
                    "the originals were not kept in the CCR store ({}); they stay in the session log",
                    err.message
                ));
                None
            }
        }
    }
}
