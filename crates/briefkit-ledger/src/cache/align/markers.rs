//! Markers that well-known agent clients write into their own requests, so a drift report
//! can say what a changed element is and what its change means for the cache, instead of
//! leaving an operator to guess at a line of client bookkeeping.
//!
//! A marker is recognised by a fixed text that only its client writes; the meaning is the
//! client's documented or observed behaviour, stated as what it does to a prompt cache.

/// A known client's marker found in a differing element.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ClientMarker {
    /// The client that writes it.
    pub client: &'static str,
    /// What the marker is.
    pub marker: &'static str,
    /// What a change of it means for the cache.
    pub meaning: &'static str,
}

struct Known {
    /// Every one of these must be in the element's text.
    needles: &'static [&'static str],
    marker: ClientMarker,
}

const KNOWN: &[Known] = &[
    Known {
        needles: &["x-anthropic-billing-header:", "cc_version="],
        marker: ClientMarker {
            client: "Claude Code",
            marker: "cc_version billing block (the first system block: the client's version \
                     and a suffix derived from the conversation's first prompt)",
            meaning: "it changes from one conversation to the next, never within one: the calls \
                      of one conversation still share their prefix, but it sits ahead of every \
                      cache breakpoint, so two conversations do not share a cached prefix as \
                      sent. Compare the calls of one conversation (or pass --wakes and expect \
                      this block to differ)",
        },
    },
    Known {
        needles: &["<environment_context>"],
        marker: ClientMarker {
            client: "Codex CLI",
            marker: "environment context (working directory, shell, current date, time zone)",
            meaning: "Codex writes it once at the start of a conversation, after its \
                      instructions: a new conversation, another directory or another day \
                      changes it, and the cache is reused only up to it",
        },
    },
];

/// The known marker in an element's text as sent, if any.
pub fn find(text: &str) -> Option<ClientMarker> {
    KNOWN
        .iter()
        .find(|known| known.needles.iter().all(|needle| text.contains(needle)))
        .map(|known| known.marker.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_codes_billing_block_is_named_and_ordinary_text_is_not() {
        let block = r#"{"type":"text","text":"x-anthropic-billing-header: cc_version=9.9.9.abc; cc_entrypoint=cli;"}"#;
        assert_eq!(find(block).map(|m| m.client), Some("Claude Code"));
        assert_eq!(find(r#"{"text":"cc_version is a word here"}"#), None);
        let codex = r#"{"role":"user","content":"<environment_context><cwd>/x</cwd></environment_context>"}"#;
        assert_eq!(find(codex).map(|m| m.client), Some("Codex CLI"));
    }
}
