//! Text that crosses the program's edge, handled in one place each way: the one sanitiser
//! for what a model, a client, a server or a file says before a terminal shows it (or a
//! record keeps it), the one YAML reader with the limits that keep parsing linear, and the
//! one detector of volatile-looking content (timestamps, ids, tokens) that `check`, `align`
//! and `stats` share.
//!
//! A leaf: it imports nothing of the crate but the error type, so every layer (providers,
//! the brief loader, sessions, the CCR store, the CLI) can use it without a cycle.

pub mod constant;
pub mod sanitize;
pub mod volatile;
pub mod yaml;
