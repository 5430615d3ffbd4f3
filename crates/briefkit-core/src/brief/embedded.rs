//! Briefs built into the binary (the compressor, the compaction brief): loaded from their
//! embedded files exactly as a brief on disk is parsed, so CI's checks of `briefs/` hold
//! for what the binary runs. A problem there is a bug in the build, not bad input.

use std::path::Path;

use super::{Brief, Manifest, parse_markdown};
use crate::error::{Error, Result};

impl Brief {
    /// The brief at `dir` (a path under `briefs/`, for messages) from its embedded manifest
    /// text and `(id, file text)` items. Fails with an internal error (exit 70) naming the
    /// first problem.
    pub fn embedded(dir: &str, manifest: &str, items: &[(&str, &str)]) -> Result<Brief> {
        let broken = |what: String| Error::internal(format!("built-in brief {dir}: {what}"));
        let dir = Path::new(dir);
        let manifest: Manifest =
            serde_yaml::from_str(manifest).map_err(|e| broken(e.to_string()))?;
        let mut problems = Vec::new();
        let mut parsed = Vec::with_capacity(manifest.items.len());
        for id in &manifest.items {
            let (_, text) = items
                .iter()
                .find(|(name, _)| name == id)
                .ok_or_else(|| broken(format!("item `{id}` is not embedded")))?;
            let path = dir.join("items").join(format!("{id}.md"));
            parsed.extend(parse_markdown(
                id,
                &path,
                (*text).to_string(),
                &mut problems,
            ));
        }
        if let Some(problem) = problems.first() {
            return Err(broken(problem.to_string()));
        }
        Ok(Brief {
            dir: dir.to_path_buf(),
            manifest,
            items: parsed,
            warnings: Vec::new(),
            static_placeholders: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_item_is_an_internal_error() {
        let err = Brief::embedded("briefs/x", "name: x\nitems: [a]\n", &[]).unwrap_err();
        assert_eq!(err.exit_code(), 70);
        assert!(
            err.to_string().contains("item `a` is not embedded"),
            "{err}"
        );
    }

    #[test]
    fn a_broken_item_is_an_internal_error() {
        let err = Brief::embedded(
            "briefs/x",
            "name: x\nitems: [a]\n",
            &[("a", "no front matter")],
        )
        .unwrap_err();
        assert_eq!(err.exit_code(), 70);
    }
}
