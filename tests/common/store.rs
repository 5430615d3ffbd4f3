//! Helpers for the version and proposal tests: hand-made proposals and item bodies.

use std::fs;
use std::path::Path;

use briefkit::wire::canonical::sha256_hex;

/// The body of an item file (after its front matter).
pub fn body(item_file: &Path) -> String {
    let text = fs::read_to_string(item_file).unwrap();
    let rest = text.strip_prefix("---\n").unwrap();
    let end = rest.find("\n---\n").unwrap();
    rest[end + 5..].to_string()
}

/// Writes a proposal for `item` as `brief compress` would, based on the item's current
/// body; `dropped` lists `(kind, value)` facts the guard reported dropped.
pub fn write_proposal(
    brief: &Path,
    item: &str,
    new_body: &str,
    dropped: &[(&str, &str)],
    n: u32,
) -> String {
    let base = body(&brief.join("items").join(format!("{item}.md")));
    let id = format!("{item}-2026010203040{}-a{n:03x}", n % 10);
    let dropped: Vec<serde_yaml::Value> = dropped
        .iter()
        .map(|(kind, value)| {
            serde_yaml::from_str(&format!(
                "{{kind: {kind}, value: '{value}', line: 1, column: 1}}"
            ))
            .unwrap()
        })
        .collect();
    let mut guard = serde_yaml::Mapping::new();
    guard.insert("dropped".into(), serde_yaml::Value::Sequence(dropped));
    guard.insert("introduced".into(), serde_yaml::Value::Sequence(Vec::new()));
    guard.insert(
        "counts".into(),
        serde_yaml::Value::Mapping(serde_yaml::Mapping::new()),
    );
    let proposal = serde_yaml::to_string(&serde_yaml::Value::Mapping(
        [
            ("id", serde_yaml::Value::from(id.clone())),
            ("item", item.into()),
            ("base_sha256", sha256_hex(base.as_bytes()).into()),
            ("base_version", serde_yaml::Value::Null),
            ("created", format!("2026-01-02T03:04:0{}Z", n % 10).into()),
            ("provider", "openai".into()),
            ("model", "test-model".into()),
            ("compressor", "c0".repeat(32).into()),
            ("usage", serde_yaml::from_str("{input_tokens: 200, cached_input_tokens: 0, cache_write_tokens: 0, output_tokens: 20}").unwrap()),
            ("tokens_before", 30.into()),
            ("tokens_after", 20.into()),
            ("guard", serde_yaml::Value::Mapping(guard)),
            ("body", new_body.into()),
        ]
        .into_iter()
        .map(|(k, v)| (serde_yaml::Value::from(k), v))
        .collect(),
    ))
    .unwrap();
    fs::create_dir_all(brief.join("proposals")).unwrap();
    fs::write(brief.join("proposals").join(format!("{id}.yaml")), proposal).unwrap();
    id
}

/// Every file below `dir` with its bytes, except the (empty) writer lock file, which a
/// refused writer may create: to prove a command wrote nothing.
pub fn content_tree(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut tree = super::snapshot_tree(dir);
    // The writer lock is held, not written; the usage ledger records calls, failed ones
    // included, and lives outside any brief.
    tree.retain(|(path, _)| {
        !path.ends_with(".writer.lock")
            && !path
                .components()
                .any(|c| c.as_os_str() == ".brief" || c.as_os_str() == "state")
    });
    tree
}
