//! `brief init` as one library operation: a new brief with one item of each common type
//! (identity, instruction, rule, sample, tool, context) and a `.gitignore`, written with
//! the manifest last so that a crash leaves no half brief.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::brief::{MANIFEST, valid_id};
use crate::error::{Error, Result};
use crate::files::inside;

/// What [`scaffold`] wrote.
#[derive(Debug, Serialize)]
pub struct Scaffolded {
    /// The brief directory, as given.
    pub brief: PathBuf,
    pub name: String,
    /// The items' ids, in the manifest's order.
    pub items: Vec<String>,
}

impl Scaffolded {
    /// Always `ok`: a brief that could not be created is an error.
    pub fn status(&self) -> &'static str {
        "ok"
    }

    pub fn summary(&self) -> String {
        format!(
            "created a brief in {} with {} items",
            self.brief.display(),
            self.items.len()
        )
    }
}

const ITEMS: &[(&str, &str)] = &[
    (
        "identity.md",
        "---\ntype: identity\ntitle: Who the agent is\n---\nYou are the assistant for {name}. Say here who the agent is, whom it serves and what it is for.\n",
    ),
    (
        "instructions.md",
        "---\ntype: instruction\ntitle: How to work\n---\nDescribe how the agent should handle the common requests, step by step.\nInstructions may be shortened by `brief compress` after a human review.\n",
    ),
    (
        "limits.md",
        "---\ntype: rule\ntitle: Hard limits\n---\n- Never share another customer's data.\n- Never promise anything the policy does not allow.\n\nRules are never sent to a model for rewording; `brief check` keeps them byte-for-byte.\n",
    ),
    (
        "example.md",
        "---\ntype: sample\ntitle: A worked example\n---\n**User:** A typical question.\n\n**Assistant:** The answer you want the agent to give.\n",
    ),
    (
        "search_docs.tool.yaml",
        "type: tool\nname: search_docs\ndescription: Search the product documentation and return the most relevant passages.\ninput_schema:\n  type: object\n  properties:\n    query:\n      type: string\n      description: What to search for\n  required: [query]\n",
    ),
    (
        "session.md",
        "---\ntype: context\ntitle: This conversation\n---\nThe user's name is {{user_name}}.\n",
    ),
];

/// Writes a new brief into `dir` (which may exist but must not hold a brief or one of the
/// item files), named `name` or after the directory.
pub fn scaffold(dir: &Path, name: Option<&str>) -> Result<Scaffolded> {
    if dir.exists() && !dir.is_dir() {
        return Err(Error::input(format!(
            "{}: already exists and is a file, not a directory",
            dir.display()
        ))
        .with_hint("a brief is a directory: choose another directory; nothing was written"));
    }
    if dir.join(MANIFEST).exists() {
        return Err(Error::input(format!(
            "{}: already a brief (it has a {MANIFEST})",
            dir.display()
        ))
        .with_hint("choose another directory; nothing was written"));
    }
    let items_dir = dir.join("items");
    for (file, _) in ITEMS {
        let path = items_dir.join(file);
        if path.exists() {
            return Err(Error::input(format!("{}: already exists", path.display()))
                .with_hint("choose an empty directory; nothing was written"));
        }
    }
    let name = match name {
        Some(name) => name.to_string(),
        None => dir
            .canonicalize()
            .ok()
            .or_else(|| Some(dir.to_path_buf()))
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "brief".to_string()),
    };
    if name.trim().is_empty() || name.contains('\n') {
        return Err(Error::input("the brief's name must be one non-empty line")
            .with_hint("pass --name NAME"));
    }
    let ids: Vec<&str> = ITEMS
        .iter()
        .map(|(file, _)| file.trim_end_matches(".tool.yaml").trim_end_matches(".md"))
        .collect();
    debug_assert!(ids.iter().all(|id| valid_id(id)));
    let manifest = format!(
        "name: {}\ndescription: Describe what this agent does\ntokenizer: o200k_base\nitems: [{}]\nbudget: {{ context_limit: 128000 }}\n# budget: {{ context_limit: 128000, max_brief_tokens: 24000 }}   # `brief check` fails past max_brief_tokens\n# model: {{ provider: openai, name: gpt-4.1-mini }}\n# pricing: {{ input_per_mtok: 0.40, cached_input_per_mtok: 0.10, output_per_mtok: 1.60 }}\n",
        serde_json::to_string(&name).unwrap_or_default(),
        ids.join(", ")
    );
    let mut files: Vec<(PathBuf, Vec<u8>)> = ITEMS
        .iter()
        .map(|(file, text)| (items_dir.join(file), text.replace("{name}", &name).into()))
        .collect();
    files.push((dir.join(".gitignore"), super::import::GITIGNORE.to_vec()));
    // The manifest last: until it exists the directory is not a brief.
    files.push((dir.join(MANIFEST), manifest.into_bytes()));
    inside::write_files(dir, &files)?;
    Ok(Scaffolded {
        brief: dir.to_path_buf(),
        name,
        items: ids.iter().map(|id| id.to_string()).collect(),
    })
}
