//! Where a session's prefix drifted, not only that it did: the first differing byte of the
//! part that broke the cache and a short excerpt of it before and after, as `brief align`
//! shows them.
//!
//! The hashes a session keeps (`session`) say *whether* a part changed; *where* needs the
//! previous call's text. So a session may also keep the texts its drift is measured in —
//! its stable tools, system and worked examples first, then its conversation — when they
//! fit in [`PER_SESSION_BYTES`], and all sessions' kept texts stay within
//! [`BUDGET_BYTES`]: past it, the texts of the least recently seen session are dropped.
//! Its hashes stay, so its drift is still detected and counted; only the offset and the
//! excerpt of its next drift are then unknown, and the event says why. Stable texts are
//! shared (one `Arc`) between the sessions of one agent and the head cache, so the memory
//! really used is at most the budget and usually far less.
//!
//! An excerpt is shown to a person, so it is cut from texts the call's redactor cleaned
//! whole — a key is never shown, not even half of one cut by the window — then to align's
//! context window, ids and tokens shortened as align shortens them.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use serde::Serialize;

use crate::cache::align::Part;
use crate::cache::align::diff;
use crate::provider::redact::Redactor;

/// The most text one session keeps for drift offsets (its stable parts and conversation,
/// as compared).
pub const PER_SESSION_BYTES: usize = 1 << 20;

/// The most text all sessions keep together; the least recently seen session's texts go
/// first.
pub const BUDGET_BYTES: usize = 32 << 20;

/// The stable parts of a request as `align` compares them (`wire::prefix`'s texts).
#[derive(Debug, PartialEq, Eq)]
pub struct StableTexts {
    pub tools: String,
    pub system: String,
    pub examples: Option<String>,
}

impl StableTexts {
    pub fn bytes(&self) -> usize {
        self.tools.len() + self.system.len() + self.examples.as_ref().map_or(0, String::len)
    }
}

/// One call's compared texts; the conversation's only when it fit beside the stable ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Texts {
    pub stable: Arc<StableTexts>,
    /// `[M0,M1,…]`, each message as `align` compares it (without `cache_control`).
    pub messages: Option<Arc<str>>,
}

impl Texts {
    fn bytes(&self) -> usize {
        self.stable.bytes() + self.messages.as_ref().map_or(0, |m| m.len())
    }

    fn of(&self, part: Part) -> Option<&str> {
        match part {
            Part::Tools => Some(&self.stable.tools),
            Part::System => Some(&self.stable.system),
            Part::Examples => Some(self.stable.examples.as_deref().unwrap_or("")),
            Part::Messages => self.messages.as_deref(),
        }
    }
}

/// Where the first drifted part of a call first differs from the session's previous call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Detail {
    /// The part (`tools`, `system`, `examples`, `messages`), as `drifted_parts` names it.
    pub part: String,
    /// The byte offset of the first difference in the part's text, as `brief align` counts
    /// it; `None` when the previous text was not kept.
    pub offset: Option<u64>,
    /// About 40 bytes either side of the difference in the previous call's text, and in this
    /// call's; keys removed, ids and tokens cut.
    pub previous: Option<String>,
    pub current: Option<String>,
    /// Why there is no offset, when there is none.
    pub missing: Option<&'static str>,
}

/// What a session's previous call left for the next comparison.
pub struct Previous {
    pub part: Part,
    pub before: Option<Texts>,
    pub now: Option<Texts>,
    /// Why `before` is missing.
    pub missing: &'static str,
}

/// The texts of every recent session, within the budget.
#[derive(Default)]
pub struct Kept {
    by_session: HashMap<String, (Texts, u64)>,
    seen: BTreeMap<u64, String>,
    bytes: usize,
    clock: u64,
    /// Whether the session's texts were ever dropped for the budget (so a missing offset
    /// can say why); bounded like the map, forgotten with the session.
    evicted: HashSet<String>,
}

/// How much the kept texts hold, for `/stats`.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct KeptUsage {
    pub sessions: u64,
    pub bytes: u64,
    pub budget_bytes: u64,
    pub per_session_bytes: u64,
}

impl Kept {
    /// Puts `now` in the place of `session`'s texts and returns what the comparison of
    /// `drifted` (the first drifted part, if any) needs; the excerpts are made later,
    /// outside any lock ([`describe`]).
    pub fn swap(
        &mut self,
        session: &str,
        now: Option<&Texts>,
        drifted: Option<Part>,
    ) -> Option<Previous> {
        let before = self.remove(session);
        let evicted = self.evicted.remove(session);
        if let Some(now) = now {
            self.insert(session, now.clone());
        }
        let part = drifted?;
        let missing = match (&before, now) {
            (_, None) => "this call's texts are over the per-session limit",
            (None, _) if evicted => {
                "the session's previous texts were dropped for the memory budget"
            }
            (None, _) => "the previous call's texts were over the per-session limit",
            (Some(texts), _) if texts.of(part).is_none() => {
                "the previous conversation was over the per-session limit"
            }
            (Some(_), Some(now)) if now.of(part).is_none() => {
                "this call's conversation is over the per-session limit"
            }
            _ => "",
        };
        Some(Previous {
            part,
            before,
            now: now.cloned(),
            missing,
        })
    }

    /// Forgets a session (the drift state forgot it first).
    pub fn forget(&mut self, session: &str) {
        self.remove(session);
        self.evicted.remove(session);
    }

    pub fn usage(&self) -> KeptUsage {
        KeptUsage {
            sessions: self.by_session.len() as u64,
            bytes: self.bytes as u64,
            budget_bytes: BUDGET_BYTES as u64,
            per_session_bytes: PER_SESSION_BYTES as u64,
        }
    }

    fn remove(&mut self, session: &str) -> Option<Texts> {
        let (texts, seen) = self.by_session.remove(session)?;
        self.seen.remove(&seen);
        self.bytes -= texts.bytes();
        Some(texts)
    }

    fn insert(&mut self, session: &str, texts: Texts) {
        let bytes = texts.bytes();
        if bytes > PER_SESSION_BYTES {
            return;
        }
        while self.bytes + bytes > BUDGET_BYTES {
            let Some((_, oldest)) = self.seen.pop_first() else {
                break;
            };
            if let Some((dropped, _)) = self.by_session.remove(&oldest) {
                self.bytes -= dropped.bytes();
            }
            // The drift state holds at most `MAX_SESSIONS` sessions and forgets them here
            // too, so this stays bounded.
            self.evicted.insert(oldest);
        }
        self.clock += 1;
        self.bytes += bytes;
        self.seen.insert(self.clock, session.to_string());
        self.by_session
            .insert(session.to_string(), (texts, self.clock));
    }
}

/// The offset and excerpts of a drift, from what [`Kept::swap`] returned; linear in the
/// texts (only drifted calls pay it).
pub fn describe(previous: &Previous, redactor: &Redactor) -> Detail {
    let part = previous.part;
    let mut detail = Detail {
        part: part.as_str().to_string(),
        offset: None,
        previous: None,
        current: None,
        missing: None,
    };
    let texts = previous
        .before
        .as_ref()
        .and_then(|b| b.of(part))
        .zip(previous.now.as_ref().and_then(|n| n.of(part)));
    let Some((before, now)) = texts else {
        detail.missing = Some(previous.missing);
        return detail;
    };
    let Some(offset) = diff::first_difference(before, now) else {
        // The hashes differ but the texts do not: only possible when a part's text is not
        // what its hash covers; say so rather than guess.
        detail.missing = Some("the texts compared equal");
        return detail;
    };
    detail.offset = Some(offset as u64);
    let (before, now) = (redactor.redact(before), redactor.redact(now));
    match diff::first_difference(&before, &now) {
        Some(at) => {
            // A second pass: the window may now hold what `[redacted]` left of a key's
            // surroundings, never the key.
            detail.previous = Some(redactor.redact(&diff::context(&before, at)));
            detail.current = Some(redactor.redact(&diff::context(&now, at)));
        }
        None => {
            let hidden = crate::provider::redact::REDACTED.to_string();
            detail.previous = Some(hidden.clone());
            detail.current = Some(hidden);
        }
    }
    detail
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(system: &str, messages: Option<&str>) -> Texts {
        Texts {
            stable: Arc::new(StableTexts {
                tools: "[]".into(),
                system: system.into(),
                examples: None,
            }),
            messages: messages.map(Arc::from),
        }
    }

    #[test]
    fn the_offset_and_excerpts_come_from_the_previous_texts() {
        let mut kept = Kept::default();
        assert!(
            kept.swap("s", Some(&texts("\"Be brief.\"", None)), None)
                .is_none()
        );
        let now = texts("\"Be brief. Today is Monday.\"", None);
        let previous = kept.swap("s", Some(&now), Some(Part::System)).unwrap();
        let detail = describe(&previous, &Redactor::with_keys([]));
        assert_eq!(detail.offset, Some(10));
        assert_eq!(detail.previous.as_deref(), Some("\"Be brief.\""));
        assert_eq!(
            detail.current.as_deref(),
            Some("\"Be brief. Today is Monday.\"")
        );
        assert_eq!(detail.missing, None);
    }

    #[test]
    fn a_key_never_shows_in_an_excerpt_even_cut_by_the_window() {
        // The call's own key (not shaped like a provider key: only its redactor knows it)
        // and a provider-shaped one, each starting before the window and ending inside it.
        let own = "plainsecretvalue1234567890ENDOFOWN";
        let shaped = "sk-proj-0123456789abcdefghijklmnopqrstuvwxyzENDOFSHAPED";
        for key in [own, shaped] {
            let padding = "x".repeat(60);
            let before = format!("\"{padding} {key} end\"");
            let after = format!("\"{padding} {key} end, changed\"");
            let mut kept = Kept::default();
            kept.swap("s", Some(&texts(&before, None)), None);
            let previous = kept
                .swap("s", Some(&texts(&after, None)), Some(Part::System))
                .unwrap();
            let detail = describe(&previous, &Redactor::with_keys([own]));
            let shown = format!("{detail:?}");
            assert!(!shown.contains("ENDOF"), "{shown}");
            assert!(detail.current.unwrap().contains("changed"));
        }
    }

    #[test]
    fn the_budget_drops_the_least_recently_seen_sessions_texts_and_says_so() {
        let mut kept = Kept::default();
        let big = "y".repeat(PER_SESSION_BYTES - 64);
        let n = BUDGET_BYTES / PER_SESSION_BYTES + 2;
        for i in 0..n {
            kept.swap(&format!("s{i}"), Some(&texts(&big, None)), None);
        }
        let usage = kept.usage();
        assert!(usage.bytes <= BUDGET_BYTES as u64, "{usage:?}");
        assert!(usage.sessions < n as u64);
        let previous = kept
            .swap("s0", Some(&texts("\"new\"", None)), Some(Part::System))
            .unwrap();
        let detail = describe(&previous, &Redactor::with_keys([]));
        assert_eq!(detail.offset, None);
        assert!(detail.missing.unwrap().contains("memory budget"));
    }

    #[test]
    fn texts_over_the_per_session_limit_are_not_kept() {
        let mut kept = Kept::default();
        let huge = "z".repeat(PER_SESSION_BYTES + 1);
        kept.swap("s", Some(&texts(&huge, None)), None);
        assert_eq!(kept.usage().bytes, 0);
        let previous = kept
            .swap("s", Some(&texts("\"a\"", None)), Some(Part::System))
            .unwrap();
        assert!(previous.missing.contains("per-session limit"));
    }

    #[test]
    fn a_conversation_that_was_not_kept_leaves_messages_drift_without_an_offset() {
        let mut kept = Kept::default();
        kept.swap("s", Some(&texts("\"S\"", None)), None);
        let previous = kept
            .swap(
                "s",
                Some(&texts("\"S\"", Some("[1]"))),
                Some(Part::Messages),
            )
            .unwrap();
        let detail = describe(&previous, &Redactor::with_keys([]));
        assert_eq!(detail.offset, None);
        assert!(detail.missing.unwrap().contains("conversation"));
    }
}
