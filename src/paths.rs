//! Where a user's own state lives: the usage ledger and the CCR store.
//!
//! Per user, never per working directory: a ledger or store that followed the current
//! directory would scatter a user's calls over every checkout and lose the originals a
//! digest points to when the next wake runs elsewhere.

use std::path::PathBuf;

/// `$XDG_STATE_HOME/briefkit` (when that variable is an absolute path, as the XDG
/// specification requires), else `$HOME/.local/state/briefkit`; `None` when neither is set.
pub fn state_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(state) = var("XDG_STATE_HOME").map(PathBuf::from)
        && state.is_absolute()
    {
        return Some(state.join("briefkit"));
    }
    var("HOME").map(|home| PathBuf::from(home).join(".local/state/briefkit"))
}
