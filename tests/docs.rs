//! The manual cannot drift from the binary: `docs/reference.md` is what `brief generate
//! reference` prints, every flag has help text, every relative link in the README and the
//! guides resolves (file and heading), every nested subcommand has a man page, and no test
//! file is left out of the one test binary.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::common::brief;
use crate::harness::assert_exit;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_command_reference_in_docs_is_generated_from_the_binary() {
    let out = brief().args(["generate", "reference"]).output().unwrap();
    assert!(out.status.success());
    let generated = String::from_utf8(out.stdout).unwrap();
    let path = repo().join("docs/reference.md");
    if std::env::var_os("BRIEF_UPDATE_DOCS").is_some() {
        fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/reference.md is not what `brief generate reference` prints: a flag or command \
         changed without its reference. Regenerate it with \
         `BRIEF_UPDATE_DOCS=1 cargo test --test tests docs::` and commit the result."
    );
}

#[test]
fn every_command_and_flag_has_help_text() {
    let missing = briefkit::cli::reference::undocumented(briefkit::cli::command());
    assert!(missing.is_empty(), "undocumented: {missing:#?}");
}

/// GitHub's anchor for a heading: lower case, spaces to dashes, punctuation dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// The headings of a Markdown file outside code blocks, as anchors.
fn anchors(text: &str) -> HashSet<String> {
    let mut fence: Option<String> = None;
    let mut out = HashSet::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        let ticks: String = trimmed.chars().take_while(|&c| c == '`').collect();
        if ticks.len() >= 3 {
            match &fence {
                None => fence = Some(ticks),
                Some(open) if ticks.len() >= open.len() && trimmed.trim() == ticks => fence = None,
                Some(_) => {}
            }
            continue;
        }
        if fence.is_none() && line.starts_with('#') {
            let heading = line.trim_start_matches('#');
            out.insert(anchor(heading));
        }
    }
    out
}

fn markdown_files() -> Vec<PathBuf> {
    let mut files = vec![repo().join("README.md"), repo().join("BENCHMARKS.md")];
    for entry in fs::read_dir(repo().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    files.sort();
    files
}

#[test]
fn every_relative_link_in_the_manual_resolves() {
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut broken = Vec::new();
    for file in markdown_files() {
        let text = fs::read_to_string(&file).unwrap();
        for capture in link.captures_iter(&text) {
            let target = &capture[1];
            if target.starts_with("http://") || target.starts_with("https://") {
                continue;
            }
            let (path, fragment) = match target.split_once('#') {
                Some((path, fragment)) => (path, Some(fragment)),
                None => (target, None),
            };
            let resolved: PathBuf = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap_or(Path::new(".")).join(path)
            };
            if !resolved.exists() {
                broken.push(format!("{}: {target} (no such file)", file.display()));
                continue;
            }
            if let Some(fragment) = fragment {
                let Ok(body) = fs::read_to_string(&resolved) else {
                    continue;
                };
                if !anchors(&body).contains(fragment) {
                    broken.push(format!("{}: {target} (no such heading)", file.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links: {broken:#?}");
}

#[test]
fn man_pages_exist_for_every_nested_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let out = brief()
        .args(["generate", "man", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_exit(&out, 0);
    for page in [
        "brief.1",
        "brief-session.1",
        "brief-session-new.1",
        "brief-ccr-put.1",
    ] {
        assert!(dir.path().join(page).is_file(), "{page} missing");
    }
    // Every page another page links to exists.
    let see_also = regex::Regex::new(r"\\fB(brief(?:\\-[a-z]+)+)\\fR\(1\)").unwrap();
    for entry in fs::read_dir(dir.path()).unwrap() {
        let text = fs::read_to_string(entry.unwrap().path()).unwrap();
        for capture in see_also.captures_iter(&text) {
            let name = capture[1].replace("\\-", "-");
            assert!(
                dir.path().join(format!("{name}.1")).is_file(),
                "{name}(1) is linked to but has no page"
            );
        }
    }
}

#[test]
fn no_test_file_is_left_out_of_the_one_test_binary() {
    let tests = repo().join("tests");
    let main = fs::read_to_string(tests.join("tests.rs")).unwrap();
    let mut missing = Vec::new();
    for entry in fs::read_dir(&tests).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let is_module = if path.is_dir() {
            path.join("mod.rs").is_file()
        } else {
            path.extension().is_some_and(|e| e == "rs") && name != "tests"
        };
        if is_module && !main.contains(&format!("mod {name};")) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "test files not compiled into tests/tests.rs: {missing:?}"
    );
}

/// The `--provider` names in docs/compression.md's synopsis of `brief compress` are the
/// ones `--help` offers: the guide once listed two of four.
#[test]
fn the_compression_guide_lists_every_provider_compress_help_offers() {
    let out = brief().args(["compress", "--help"]).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let guide = fs::read_to_string(repo().join("docs/compression.md")).unwrap();
    let synopsis = regex::Regex::new(r"\[--provider ([a-z|]+)\]").unwrap();
    let listed: HashSet<&str> = synopsis
        .captures(&guide)
        .expect("the guide's synopsis names --provider")
        .get(1)
        .unwrap()
        .as_str()
        .split('|')
        .collect();
    for name in ["openai", "responses", "anthropic", "gemini"] {
        assert!(
            help.contains(&format!("`{name}`")),
            "--help offers {name}:\n{help}"
        );
        assert!(
            listed.contains(name),
            "docs/compression.md lists {listed:?}, not {name}"
        );
    }
}
