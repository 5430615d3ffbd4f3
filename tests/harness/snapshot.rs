//! Snapshot helpers for human and JSON output. They are macros so that insta names each
//! snapshot after the calling test module, as a direct `insta::assert_snapshot!` does.

/// Snapshots a JSON value pretty-printed (two-space indent, a final newline as
/// `serde_json::to_string_pretty` gives none), under `name`.
#[allow(unused_macros)]
macro_rules! snapshot_json {
    ($name:expr, $value:expr) => {
        insta::assert_snapshot!($name, serde_json::to_string_pretty(&$value).unwrap())
    };
}

/// Snapshots what a command printed for a person (stdout), under `name`.
#[allow(unused_macros)]
macro_rules! snapshot_human {
    ($name:expr, $ran:expr) => {
        insta::assert_snapshot!($name, $ran.stdout())
    };
}
