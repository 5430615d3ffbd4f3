//! Compaction of a `format: messages` sample: each message's content is compacted as
//! Markdown on its own (and proven on its own), then the body is written again.
//!
//! The YAML around the contents is not Markdown, so compacting the body as one Markdown
//! text could not be proven to keep it meaning what it says; message by message it can.

use super::{Compaction, compact_markdown};
use crate::brief::sample;

/// Compacts a messages body. Unchanged (and proven) when no content changes; unproven,
/// with the reason, when a content's compaction is, or when the body does not parse.
pub fn compact_messages(body: &str) -> Compaction {
    let unproven = |reason: String| Compaction {
        text: body.to_owned(),
        proven: false,
        reason: Some(reason),
    };
    let messages = match sample::parse(body) {
        Ok(messages) => messages,
        Err(problems) => {
            let why = problems.first().map_or("", |p| p.message.as_str());
            return unproven(format!("not a valid messages body: {why}"));
        }
    };
    let mut contents = Vec::with_capacity(messages.len());
    for (i, m) in messages.iter().enumerate() {
        let compaction = compact_markdown(&m.content);
        if !compaction.proven {
            let why = compaction.reason.unwrap_or_default();
            return unproven(format!(
                "{}: {why}",
                sample::SampleMessage::label(i, m.role)
            ));
        }
        let mut text = compaction.text;
        // A content's final newline is YAML's business (`|` keeps one), not Markdown's.
        if !m.content.ends_with('\n') {
            text.truncate(text.trim_end_matches('\n').len());
        }
        contents.push(text);
    }
    if messages.iter().zip(&contents).all(|(m, c)| m.content == *c) {
        return Compaction {
            text: body.to_owned(),
            proven: true,
            reason: None,
        };
    }
    let text = sample::to_body(
        messages
            .iter()
            .zip(&contents)
            .map(|(m, c)| (m.role, c.as_str())),
    );
    Compaction {
        text,
        proven: true,
        reason: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_are_compacted_one_by_one_and_the_roles_kept() {
        let body = "- role: user\n  content: |\n    Hi   \n\n\n    there\n- role: assistant\n  content: Fine.\n";
        let compaction = compact_messages(body);
        assert!(compaction.proven, "{compaction:?}");
        let back = sample::parse(&compaction.text).unwrap();
        assert_eq!(back[0].content, "Hi\n\nthere\n");
        assert_eq!(back[1].content, "Fine.");
        let again = compact_messages(&compaction.text);
        assert_eq!(again.text, compaction.text, "idempotent");
    }
}
