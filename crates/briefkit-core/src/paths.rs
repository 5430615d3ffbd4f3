//! Where a user's own state lives: the usage ledger and the CCR store.
//!
//! Per user, never per working directory: a ledger or store that followed the current
//! directory would scatter a user's calls over every checkout and lose the originals a
//! digest points to when the next wake runs elsewhere.

use std::path::PathBuf;

/// `$XDG_STATE_HOME/briefkit` (when that variable is an absolute path, as the XDG
/// specification requires), else `$HOME/.local/state/briefkit`, with the home directory
/// from the password database when `HOME` is unset (a service started without it must
/// not fall back to a shared directory such as `/tmp`); `None` when no home is known.
pub fn state_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(state) = var("XDG_STATE_HOME").map(PathBuf::from)
        && state.is_absolute()
    {
        return Some(state.join("briefkit"));
    }
    var("HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::home_dir().filter(|home| home.is_absolute()))
        .map(|home| home.join(".local/state/briefkit"))
}
