// TEMPORARY local stand-in until the compact branch merges; never committed.
pub struct Compaction { pub text: String, pub proven: bool, pub reason: Option<String> }
pub fn compact_markdown(body: &str) -> Compaction { let t = body.trim().to_string(); let text = if t.is_empty() { t } else { t + "\n" }; Compaction { text, proven: true, reason: None } }
pub fn compact_document(doc: &str) -> Compaction { compact_markdown(doc) }
