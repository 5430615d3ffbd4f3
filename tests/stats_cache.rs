//! `brief stats` on whether a brief's prefix reaches its model's minimum cacheable length.

use std::fs;

use crate::common::{brief, json, stdout, workspace};

#[test]
fn stats_says_whether_the_prefix_reaches_the_models_minimum() {
    let dir = workspace("clinic");
    let manifest = dir.path().join("clinic/brief.yaml");
    let original = fs::read_to_string(&manifest).unwrap();
    let stats = |model: &str| {
        fs::write(&manifest, format!("{original}model: {model}\n")).unwrap();
        let text = brief()
            .current_dir(dir.path())
            .args(["stats", "clinic"])
            .output()
            .unwrap();
        let data = brief()
            .current_dir(dir.path())
            .args(["stats", "clinic", "--json"])
            .output()
            .unwrap();
        (stdout(&text), json(&data)["cache"].clone())
    };
    let (text, cache) = stats("{ provider: anthropic, name: claude-3-5-haiku-20241022 }");
    assert!(text.contains("Prompt cache: the 182-token prefix is under the 2048-token minimum of Anthropic Claude Haiku 3.5"), "{text}");
    assert_eq!(cache["min_cacheable_tokens"], 2048);
    assert_eq!(cache["reaches_minimum"], false);
    let (text, cache) = stats("{ provider: openai, name: llama3.1:8b }");
    assert!(
        text.contains(
            "minimum cacheable length of an OpenAI-compatible server (llama3.1:8b) is not known"
        ),
        "{text}"
    );
    assert!(cache["reaches_minimum"].is_null());
    fs::write(&manifest, &original).unwrap();
    let out = brief()
        .current_dir(dir.path())
        .args(["stats", "clinic", "--json"])
        .output()
        .unwrap();
    assert!(json(&out)["cache"].is_null());
}
