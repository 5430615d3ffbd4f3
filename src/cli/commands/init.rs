//! `brief init`: scaffold a new brief with one item of each common type.

use std::path::PathBuf;

use crate::brief::{MANIFEST, valid_id};
use crate::cli::output::Outcome;
use crate::cli::ui::{Tone, Ui};
use crate::error::{Error, Result};
use crate::files::inside;

/// Create a new brief: a manifest, one item of each common type, and a .gitignore
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  brief init briefs/helpdesk && brief compose briefs/helpdesk --var user_name=Ada"
)]
pub struct Args {
    /// The directory to create (it may exist, but must not hold a brief yet)
    pub dir: PathBuf,
    /// The brief's name (default: the directory's name)
    #[arg(long)]
    pub name: Option<String>,
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

pub fn run(args: Args, ui: &Ui) -> Result<Outcome> {
    let dir = &args.dir;
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
    let name = match &args.name {
        Some(name) => name.clone(),
        None => dir
            .canonicalize()
            .ok()
            .or_else(|| Some(dir.clone()))
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
    files.push((
        dir.join(".gitignore"),
        b"# Pending model proposals are personal until accepted.\nproposals/\n.writer.lock\n"
            .to_vec(),
    ));
    // The manifest last: until it exists the directory is not a brief.
    files.push((dir.join(MANIFEST), manifest.into_bytes()));
    inside::write_files(dir, &files)?;
    ui.info(&format!(
        "{} a brief in {} with {} items",
        ui.paint_err("created", Tone::Good),
        dir.display(),
        ITEMS.len()
    ));
    ui.info(&format!(
        "next: edit the items, then `brief compose {0} --var user_name=Ada` and `brief lock {0}`",
        crate::cli::ui::shell_quote(&dir.display().to_string())
    ));
    Ok(Outcome::Ok)
}
