//! The crash tests' switch: `BRIEF_FAULT_INJECT=session-<point>` aborts the process at
//! that point of an append (debug builds only, like the store's).

pub fn active(point: &str) -> bool {
    #[cfg(debug_assertions)]
    {
        std::env::var("BRIEF_FAULT_INJECT").is_ok_and(|v| v.strip_prefix("session-") == Some(point))
    }
    #[cfg(not(debug_assertions))]
    {
        let _ = point;
        false
    }
}

/// Aborts here when the switch names this point.
pub fn hit(point: &str) {
    if active(point) {
        std::process::abort();
    }
}
