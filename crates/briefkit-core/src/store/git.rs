//! The body git has committed for an item file, so that the first version of an item with
//! no history can be the text before a hand edit rather than the edit itself.
//!
//! Only read, never written: `git show HEAD:./<file>` run in the item's directory. Outside a
//! git work tree, for a file git does not track, or without git installed, there is simply
//! no committed body.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::brief::parse_markdown;

/// The body (below the front matter) of `item_path` as committed at `HEAD`, if any.
pub fn committed_body(item_id: &str, item_path: &Path) -> Option<String> {
    let dir = item_path.parent()?;
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let name = item_path.file_name()?.to_str()?;
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["show", &format!("HEAD:./{name}")])
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let mut problems = Vec::new();
    let item = parse_markdown(item_id, item_path, text, &mut problems)?;
    Some(item.body().to_string())
}
