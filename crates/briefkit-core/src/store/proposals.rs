//! Pending model proposals: `BRIEF/proposals/<id>.yaml`, one shorter body each, waiting
//! for a human to accept or discard it.
//!
//! Saving a proposal writes nothing else; the item changes only on accept. An id names a
//! file, so it is validated before it touches a path: nothing a user types can name a
//! file outside `proposals/`.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::brief::{Brief, Item, valid_id};
use crate::clock::Stamp;
use crate::error::{Error, Result, StoreTopic, Topic};
use crate::files::inside;
use crate::files::write_atomic;
use crate::guard::{Fact, Report};
use crate::wire::canonical::sha256_hex;

pub const PROPOSALS_DIR: &str = "proposals";

/// Token usage of the model call that produced a proposal, as the provider reported it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallUsage {
    /// All input, cached included.
    pub input_tokens: u64,
    /// The part of `input_tokens` served from the provider's cache; `null` when the
    /// provider did not say (not the same as 0), as in the usage ledger.
    #[serde(default)]
    pub cached_input_tokens: Option<u64>,
    #[serde(default)]
    pub cache_write_tokens: Option<u64>,
    pub output_tokens: u64,
}

/// How the model call that produced a proposal was made, beside its provider and model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallSettings {
    /// `null` when the model's default was left.
    pub temperature: Option<f64>,
    /// The answer's length cap.
    pub max_tokens: u32,
    /// `bundled`, or the compressor brief's directory as given with `--compressor`.
    pub compressor: String,
    /// The compressor brief's manifest name.
    pub compressor_name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Proposal {
    pub id: String,
    pub item: String,
    /// sha256 of the item's body the proposal was made from: accept refuses when the
    /// body changed since.
    pub base_sha256: String,
    /// The item's latest version then, if it had one.
    pub base_version: Option<u32>,
    /// RFC 3339, UTC.
    pub created: String,
    pub provider: String,
    pub model: String,
    /// Prefix hash of the compressor brief that asked for the proposal.
    pub compressor: String,
    /// The call's settings (absent in proposals saved before they were recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<CallSettings>,
    pub usage: CallUsage,
    pub tokens_before: usize,
    pub tokens_after: usize,
    /// The guard's report on (body at base, proposed body).
    pub guard: Report,
    /// The proposed body.
    pub body: String,
}

impl Proposal {
    /// Whether the item changed since the proposal was made (or is gone): `accept` would
    /// refuse it. `body` is the item's current body.
    pub fn is_stale(&self, body: Option<&str>) -> bool {
        body.is_none_or(|body| sha256_hex(body.as_bytes()) != self.base_sha256)
    }

    /// The dropped facts the guard reported, as `kind value` lines.
    pub fn dropped(&self) -> Vec<String> {
        fact_lines(&self.guard.dropped)
    }

    pub fn body_sha256(&self) -> String {
        sha256_hex(self.body.as_bytes())
    }
}

/// Facts as `kind value` lines, for version files and messages.
pub fn fact_lines(facts: &[Fact]) -> Vec<String> {
    facts
        .iter()
        .map(|f| format!("{} {}", f.kind.name(), f.value))
        .collect()
}

/// A new id: `<item>-<yyyymmddHHMMSS>-<4 hex>`: sorts by item, then by time.
pub fn new_id(item: &str, now: &Stamp) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let seed = format!(
        "{item}/{nanos}/{}/{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    format!(
        "{item}-{}-{}",
        now.compact(),
        &sha256_hex(seed.as_bytes())[..4]
    )
}

/// The item an id belongs to, when the id is well-formed.
pub fn item_of(id: &str) -> Option<&str> {
    let (rest, hex) = id.rsplit_once('-')?;
    let (item, stamp) = rest.rsplit_once('-')?;
    let ok = hex.len() == 4
        && hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        && stamp.len() == 14
        && stamp.bytes().all(|b| b.is_ascii_digit())
        && valid_id(item);
    ok.then_some(item)
}

pub fn valid_proposal_id(id: &str) -> bool {
    item_of(id).is_some()
}

fn unknown(brief_dir: &Path, id: &str) -> Error {
    Error::input(format!("no proposal `{id}` in {}", brief_dir.display())).with_topic(Topic::Store(
        StoreTopic::UnknownProposal {
            brief: brief_dir.to_path_buf(),
        },
    ))
}

/// The file of proposal `id`; a malformed id is bad input.
pub fn path_of(brief_dir: &Path, id: &str) -> Result<PathBuf> {
    if !valid_proposal_id(id) {
        return Err(Error::input(format!(
            "`{id}` is not a proposal id: ids look like `<item>-<yyyymmddHHMMSS>-<4 hex>`"
        ))
        .with_topic(Topic::Store(StoreTopic::UnknownProposal {
            brief: brief_dir.to_path_buf(),
        })));
    }
    Ok(brief_dir.join(PROPOSALS_DIR).join(format!("{id}.yaml")))
}

/// Writes a proposal atomically; it never replaces another one.
pub fn save(brief_dir: &Path, proposal: &Proposal) -> Result<PathBuf> {
    let path = path_of(brief_dir, &proposal.id)?;
    if fs::symlink_metadata(&path).is_ok() {
        return Err(Error::conflict(format!(
            "{}: already exists",
            path.display()
        )));
    }
    let yaml = render(proposal)?;
    inside::create_dir(brief_dir, &brief_dir.join(PROPOSALS_DIR))?;
    write_atomic(&path, yaml.as_bytes())?;
    Ok(path)
}

/// Replaces a saved proposal (after the operator edited its body in review).
pub fn replace(brief_dir: &Path, proposal: &Proposal) -> Result<PathBuf> {
    let path = path_of(brief_dir, &proposal.id)?;
    if !path.is_file() {
        return Err(unknown(brief_dir, &proposal.id));
    }
    inside::check_inside(brief_dir, &path)?;
    let yaml = render(proposal)?;
    write_atomic(&path, yaml.as_bytes())?;
    Ok(path)
}

/// The proposal with the operator's own `body` (edited in review): checked by the guard
/// against `item` (a conversation sample must keep its messages and roles, else an input
/// error and nothing is written), counted in the brief's tokenizer, and saved over the old.
pub fn revise(brief: &Brief, item: &Item, proposal: &Proposal, body: String) -> Result<Proposal> {
    let revised = Proposal {
        tokens_after: crate::tokens::count(brief.manifest.tokenizer, &body),
        guard: crate::guard::check_item(item, &body)?,
        body,
        ..proposal.clone()
    };
    replace(&brief.dir, &revised)?;
    Ok(revised)
}

/// A proposal file larger than this is neither written nor read. Each answer is capped at
/// `provider::MAX_ANSWER_BYTES`, but a conversation sample takes one answer per message and
/// the guard's report lists every fact of an item of up to 1 MiB: room for both, the same
/// as a version file. `save` and `replace` refuse what `list` would refuse.
pub const MAX_PROPOSAL_BYTES: u64 = 64 * 1024 * 1024;

/// The proposal as YAML, refused when `list` would not read it back.
fn render(proposal: &Proposal) -> Result<String> {
    render_within(proposal, MAX_PROPOSAL_BYTES)
}

fn render_within(proposal: &Proposal, limit: u64) -> Result<String> {
    let yaml = serde_yaml::to_string(proposal).map_err(|e| {
        Error::input(format!("cannot render proposal {}: {e}", proposal.id)).with_source(e)
    })?;
    if yaml.len() as u64 > limit {
        return Err(Error::input(format!(
            "proposal {} would be {} bytes; the limit is {limit} ({} MiB)",
            proposal.id,
            yaml.len(),
            limit / (1024 * 1024)
        ))
        .with_hint("compress a smaller item (split it); nothing was written"));
    }
    Ok(yaml)
}

fn read(brief_dir: &Path, path: &Path, id: &str) -> Result<Proposal> {
    let text = inside::read_text(brief_dir, path, MAX_PROPOSAL_BYTES)?;
    let mut proposal: Proposal = crate::text::yaml::from_str(&text).map_err(|e| {
        Error::input(format!("{}: unreadable proposal: {e}", path.display()))
            .with_source(e)
            .with_topic(Topic::Store(StoreTopic::UnreadableProposal))
    })?;
    // A proposal file can arrive in a pull request: its one-line fields are printed, so
    // they get the same cleaning as a server's text.
    for field in [
        &mut proposal.model,
        &mut proposal.provider,
        &mut proposal.created,
    ] {
        *field = crate::text::sanitize::one_line(field, 200);
    }
    if proposal.id != id || item_of(id) != Some(proposal.item.as_str()) {
        return Err(Error::input(format!(
            "{}: names proposal `{}` for item `{}`, not `{id}`",
            path.display(),
            proposal.id,
            proposal.item
        )));
    }
    Ok(proposal)
}

pub fn load(brief_dir: &Path, id: &str) -> Result<Proposal> {
    let path = path_of(brief_dir, id)?;
    if fs::symlink_metadata(&path).is_err() {
        return Err(unknown(brief_dir, id));
    }
    read(brief_dir, &path, id)
}

/// Every pending proposal, oldest first.
pub fn list(brief_dir: &Path) -> Result<Vec<Proposal>> {
    let dir = brief_dir.join(PROPOSALS_DIR);
    if fs::symlink_metadata(&dir).is_ok() {
        inside::check_inside(brief_dir, &dir)?;
    }
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(&dir, &e)),
    };
    let mut proposals = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(&dir, &e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(id) = name
            .strip_suffix(".yaml")
            .filter(|id| valid_proposal_id(id))
        else {
            continue;
        };
        proposals.push(read(brief_dir, &entry.path(), id)?);
    }
    proposals.sort_by(|a, b| a.created.cmp(&b.created).then_with(|| a.id.cmp(&b.id)));
    Ok(proposals)
}

/// Removes proposal `id`; the caller holds the brief's writer lock.
pub fn remove(brief_dir: &Path, id: &str) -> Result<()> {
    let path = path_of(brief_dir, id)?;
    // Unlinking never follows the file's own link, but a linked `proposals/` would put the
    // unlink outside the brief.
    inside::check_inside(brief_dir, &brief_dir.join(PROPOSALS_DIR))?;
    match fs::remove_file(&path) {
        Ok(()) => {
            if let Ok(dir) = fs::File::open(brief_dir.join(PROPOSALS_DIR)) {
                let _ = dir.sync_all();
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(unknown(brief_dir, id)),
        Err(e) => Err(Error::io(&path, &e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample(id: &str, body: &str) -> Proposal {
        Proposal {
            id: id.to_string(),
            item: item_of(id).unwrap().to_string(),
            base_sha256: sha256_hex(b"old\n"),
            base_version: None,
            created: "2026-01-02T03:04:05Z".to_string(),
            provider: "openai".to_string(),
            model: "test-model".to_string(),
            compressor: "ab".repeat(32),
            settings: None,
            usage: CallUsage {
                input_tokens: 120,
                cached_input_tokens: Some(0),
                cache_write_tokens: None,
                output_tokens: 30,
            },
            tokens_before: 40,
            tokens_after: 30,
            guard: crate::guard::check("It costs $80.\n", body),
            body: body.to_string(),
        }
    }

    #[test]
    fn a_proposal_over_the_file_limit_is_not_written() {
        let small = sample("booking-20260102030405-a1b2", "It costs $80.\n");
        let fits = render_within(&small, MAX_PROPOSAL_BYTES).unwrap();
        let err = render_within(&small, fits.len() as u64 - 1).unwrap_err();
        assert!(err.message.contains("would be"), "{}", err.message);
        assert!(render_within(&small, fits.len() as u64).is_ok());
        let dir = tempfile::tempdir().unwrap();
        save(dir.path(), &small).unwrap();
        assert_eq!(list(dir.path()).unwrap().len(), 1);
    }

    #[test]
    fn ids_are_well_formed_sortable_and_unique() {
        let now = Stamp::from_unix(1_709_251_199);
        let a = new_id("tone", &now);
        let b = new_id("tone", &now);
        assert_ne!(a, b);
        assert!(a.starts_with("tone-20240229235959-"), "{a}");
        assert_eq!(item_of(&a), Some("tone"));
        assert_eq!(item_of("my-item-20240229235959-0a9f"), Some("my-item"));
    }

    #[test]
    fn no_id_can_name_a_path_outside_proposals() {
        let dir = Path::new("b");
        for bad in [
            "../x",
            "tone",
            "../tone-20240229235959-0a9f",
            "tone-20240229235959-0a9f/..",
            "tone-2024022923595-0a9f",
            "tone-20240229235959-0A9F",
            "Tone-20240229235959-0a9f",
            "",
        ] {
            assert!(path_of(dir, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn save_load_list_remove_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let bodies = [
            "short\n",
            "line one\n\n  indented: yes\n- dash\n",
            "trailing spaces  \n",
            "\"quoted\" 'x' #tag\n",
        ];
        for (i, body) in bodies.iter().enumerate() {
            let proposal = sample(&format!("tone-2026010203040{i}-00a{i}"), body);
            save(dir.path(), &proposal).unwrap();
            // Compared as saved: the guard's canonical forms are not stored.
            let yaml = |p: &Proposal| serde_yaml::to_string(p).unwrap();
            assert_eq!(
                yaml(&load(dir.path(), &proposal.id).unwrap()),
                yaml(&proposal)
            );
            assert_eq!(save(dir.path(), &proposal).unwrap_err().exit_code(), 4);
        }
        let listed = list(dir.path()).unwrap();
        assert_eq!(listed.len(), 4);
        assert_eq!(listed[0].dropped(), vec!["price $80".to_string()]);
        remove(dir.path(), &listed[0].id).unwrap();
        assert_eq!(list(dir.path()).unwrap().len(), 3);
        assert_eq!(
            remove(dir.path(), &listed[0].id).unwrap_err().exit_code(),
            2
        );
        assert_eq!(load(dir.path(), &listed[0].id).unwrap_err().exit_code(), 2);
    }
}
