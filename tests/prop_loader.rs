//! Arbitrary bytes in any file of a brief never make the loader (or compose) panic.
use std::fs;

use briefkit::brief::Brief;
use briefkit::prompt::compose::{ComposeOptions, compose};
use proptest::prelude::*;

fn bytes_or_yaml() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..300),
        "[ -~\n]{0,200}".prop_map(String::into_bytes),
        ("(identity|rule|tool|context|bogus)", "[ -~\n{}]{0,120}")
            .prop_map(|(t, body)| format!("---\ntype: {t}\n---\n{body}").into_bytes()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn loading_arbitrary_files_never_panics(manifest in bytes_or_yaml(), item in bytes_or_yaml(), tool in bytes_or_yaml(), valid_manifest in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("items")).unwrap();
        if valid_manifest {
            fs::write(dir.path().join("brief.yaml"), "name: p\nitems: [a, t]\n").unwrap();
        } else {
            fs::write(dir.path().join("brief.yaml"), &manifest).unwrap();
        }
        fs::write(dir.path().join("items/a.md"), &item).unwrap();
        fs::write(dir.path().join("items/t.tool.yaml"), &tool).unwrap();
        if let Ok(brief) = Brief::load(dir.path()) {
            let _ = compose(&brief, &Default::default(), ComposeOptions::default());
        }
        let _ = Brief::load_for_check(dir.path());
    }
}
