//! A session's wake digest (seed 002: the stable prefix first, then the live wake digest,
//! then the run's own context). `brief session digest DIR DIGEST.yaml` renders a digest
//! file as `brief digest` does (its bulky sections backed in the CCR store) and keeps the
//! text in the session (`digest.md`); every render then opens Tier 3 with it, before the
//! brief's volatile items and the telemetry line, so the cached prefix (Tier 1, Tier 2)
//! never moves when the digest changes. The next wake replaces it; `--clear` removes it.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Session;
use super::log::Locked;
use crate::ccr::digest;
use crate::document::Document;
use crate::error::{Error, Result};
use crate::files::limits::SESSION_ENTRY;

pub const DIGEST_FILE: &str = "digest.md";

/// The digest text a session holds, if any.
pub fn read(dir: &Path) -> Result<Option<String>> {
    let path = dir.join(DIGEST_FILE);
    let Some(bytes) = crate::files::policy::read_owned(&path, SESSION_ENTRY)? else {
        return Ok(None);
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::input(format!("{}: not UTF-8", path.display())))?;
    Ok(Some(text).filter(|t| !t.trim().is_empty()))
}

/// Tier 3's text before the telemetry line: the digest, then the volatile items.
pub fn with_items(dir: &Path, items: String) -> Result<String> {
    Ok(match read(dir)? {
        Some(digest) if items.is_empty() => digest,
        Some(digest) => format!("{digest}\n\n{items}"),
        None => items,
    })
}

/// What `brief session digest` did.
#[derive(Debug, Clone, Serialize)]
pub struct DigestSet {
    /// The digest file rendered (`None`: cleared).
    pub digest: Option<PathBuf>,
    /// The digest's tokens in Tier 3.
    pub tokens: u64,
    pub sections: usize,
    /// The CCR store its bulky sections went to.
    pub store: Option<PathBuf>,
}

impl Document for DigestSet {
    fn status(&self) -> &str {
        "ok"
    }

    fn summary(&self) -> String {
        match &self.digest {
            Some(file) => format!(
                "{}: {} section{}, {} tokens at the start of Tier 3 from the next render on",
                file.display(),
                self.sections,
                if self.sections == 1 { "" } else { "s" },
                self.tokens
            ),
            None => "the session's wake digest was removed".into(),
        }
    }
}

impl Session {
    /// Renders `file` and keeps it as the session's wake digest; `None` removes it.
    pub fn set_digest(
        &self,
        file: Option<&Path>,
        store: Option<&Path>,
        min_bytes: usize,
    ) -> Result<DigestSet> {
        let path = self.dir.join(DIGEST_FILE);
        let Some(file) = file else {
            let _locked = Locked::acquire(&self.dir)?;
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(Error::io(&path, &e));
                }
                _ => {}
            }
            return Ok(DigestSet {
                digest: None,
                tokens: 0,
                sections: 0,
                store: None,
            });
        };
        let backed = digest::render_and_back(file, store, min_bytes)?;
        let text = backed.digest.text.clone();
        if text.len() as u64 > SESSION_ENTRY.bytes {
            return Err(Error::input(format!(
                "{}: the rendered digest takes {} bytes, over the {SESSION_ENTRY} limit",
                file.display(),
                text.len()
            )));
        }
        {
            let _locked = Locked::acquire(&self.dir)?;
            crate::files::write_atomic(&path, text.as_bytes())?;
        }
        Ok(DigestSet {
            digest: Some(file.to_path_buf()),
            tokens: crate::tokens::count(self.encoding, &text) as u64,
            sections: backed.digest.sections.len(),
            store: backed.store,
        })
    }
}
