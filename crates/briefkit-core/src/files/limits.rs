//! Every limit on what a command reads, in one place (docs/security.md, "Limits", has the
//! same table with the reasons). Each is checked before a byte is read where the size is
//! known (a regular file), and while reading where it is not (stdin), so no input makes a
//! command use more memory than a small multiple of its limit.

use std::fmt;

/// The most a command reads of one input, and what the input is (for the message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub bytes: u64,
    /// What the input is, as the refusal names it: "a session entry".
    pub what: &'static str,
}

const MIB: u64 = 1024 * 1024;

impl Limit {
    pub const fn mib(mib: u64, what: &'static str) -> Limit {
        Limit {
            bytes: mib * MIB,
            what,
        }
    }
}

impl fmt::Display for Limit {
    /// `16 MiB` (or the bytes, for a limit that is not a whole number of MiB).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.bytes >= MIB && self.bytes.is_multiple_of(MIB) {
            write!(f, "{} MiB", self.bytes / MIB)
        } else {
            write!(f, "{} bytes", self.bytes)
        }
    }
}

/// A session entry's text from a file or stdin (`session append --file`, `--user -`,
/// `--text -`, `--args -`, `--subagent`, `session turn --user -`) and an envelope to
/// validate: far more than any context window holds.
pub const SESSION_ENTRY: Limit = Limit::mib(16, "a session entry");
/// `session.yaml`: the brief's path, the budget figures and the values of volatile items.
pub const SESSION_CONFIG: Limit = Limit::mib(1, "a session's session.yaml");
/// `log.jsonl`, read whole on every replay; appends that would pass it are refused.
pub const SESSION_LOG: Limit = Limit::mib(256, "a session log");
/// A turn journal: one model answer (a stream is cut at 64 MiB) and its user message.
pub const SESSION_JOURNAL: Limit = Limit::mib(128, "a turn journal");
/// `.cache.json`, derived: one over the limit is rebuilt from the log.
pub const SESSION_CACHE: Limit = Limit::mib(16, "a session cache");
/// An original (or its compressed text) for the CCR store: `ccr put FILE|-`,
/// `--compressed FILE`, and every original the library stores.
pub const CCR_ORIGINAL: Limit = Limit::mib(64, "a CCR original");
/// A wake digest file (`brief digest`, `compose --digest`): its bulky sections become CCR
/// originals, so it is held to the same size.
pub const DIGEST: Limit = Limit::mib(64, "a digest file");
/// Each text `brief guard` compares, and a file `brief compact FILE` reads: a brief item
/// is at most 1 MiB; these leave room for a whole prompt.
pub const TEXT_FILE: Limit = Limit::mib(16, "a text file");
/// One request body `brief align` reads (a file, or one line of a `.jsonl` file or of
/// stdin): the proxy's request limit, the largest request the Anthropic API accepts.
pub const ALIGN_BODY: Limit = Limit::mib(32, "a request body");
/// `brief align --state FILE`: one hash per part and message of the previous wake.
pub const ALIGN_STATE: Limit = Limit::mib(16, "an align state file");
/// The prompt file `brief import` reads: room for 100,000 sections (the manifest's
/// limit) of a couple of KiB each; the import holds a few copies of it in memory.
pub const IMPORT_SOURCE: Limit = Limit::mib(256, "a prompt file to import");
/// A proposal body edited in `$EDITOR` during review (the proposal file limit).
pub const EDITED_PROPOSAL: Limit = Limit::mib(64, "an edited proposal");

/// The largest answer text accepted from a model, in bytes. An answer becomes a proposal and
/// perhaps an item, so it stays far below the loader's 1 MiB item limit; a longer one is
/// refused (exit 3) and nothing is written. `provider::MAX_ANSWER_BYTES` is this one.
pub const MAX_ANSWER_BYTES: usize = 256 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_read_in_mebibytes() {
        assert_eq!(SESSION_ENTRY.to_string(), "16 MiB");
        assert_eq!(
            Limit {
                bytes: 10,
                what: "x"
            }
            .to_string(),
            "10 bytes"
        );
    }
}
