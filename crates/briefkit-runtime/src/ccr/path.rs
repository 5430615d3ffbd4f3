//! Where the CCR store lives: a flag, else `BRIEF_CCR_PATH`, else the user's state
//! directory.
//!
//! The default is per user, not per working directory: an agent that restarts, or runs the
//! next wake from another directory, must still find the originals its digest points to.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result, Setting, Topic};

/// The environment variable naming the store file.
pub const ENV_PATH: &str = "BRIEF_CCR_PATH";

/// The store's file name inside the state directory.
pub const FILE_NAME: &str = "ccr.sqlite";

/// The store path: `flag`, else `BRIEF_CCR_PATH`, else `$XDG_STATE_HOME/briefkit/ccr.sqlite`
/// (when that variable is an absolute path, as the XDG specification requires), else
/// `~/.local/state/briefkit/ccr.sqlite`.
pub fn resolve(flag: Option<&Path>) -> Result<PathBuf> {
    if let Some(path) = flag {
        return Ok(path.to_path_buf());
    }
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(path) = var(ENV_PATH) {
        return Ok(PathBuf::from(path));
    }
    crate::paths::state_dir()
        .map(|dir| dir.join(FILE_NAME))
        .ok_or_else(|| {
            Error::input(
                "cannot find a place for the CCR store: neither XDG_STATE_HOME nor HOME is set",
            )
            .with_hint("name where the CCR store is")
            .with_topic(Topic::Setting(Setting::CcrStore))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_wins() {
        let path = resolve(Some(Path::new("/tmp/x.sqlite"))).unwrap();
        assert_eq!(path, Path::new("/tmp/x.sqlite"));
    }
}
