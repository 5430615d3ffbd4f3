//! The one integration-test binary: every test runs the real `brief` binary or links the
//! library, and shares the helpers in `common` and `loopback` (one link, one build).

mod common;
mod loopback;

mod align;
mod align_tail;
mod align_wires;
mod bundled_briefs;
mod ccr_cli;
mod ccr_store;
mod compose;
mod compress;
mod compress_batch;
mod contract;
mod count;
mod credentials;
// The crash tests need the fault switch, which only debug builds have.
#[cfg(debug_assertions)]
mod crash;
mod digest;
mod docs;
mod guard_accept;
mod guard_bundled;
mod guard_changes;
mod guard_cli;
mod guard_props;
mod guard_table;
mod harden_cli;
mod harden_display;
mod harden_inputs;
mod harden_paths;
mod harden_provider;
mod harden_session_files;
mod hostile_linear;
mod import;
mod import_auto;
mod json_snapshots;
mod limits;
mod load_errors;
mod load_listing;
mod lock_check;
mod newcomer;
mod prefix_identity;
mod probe;
mod prop_loader;
mod prop_parsers;
mod provider;
mod provider_failures;
mod provider_wires;
mod proxy;
mod proxy_faults;
mod proxy_limits;
mod proxy_records;
mod proxy_wires;
mod quiet;
mod review_batch;
mod samples;
mod samples_compress;
mod session;
mod session_compact;
#[cfg(debug_assertions)]
mod session_crash;
mod session_mcp;
mod session_props;
mod session_responses;
mod session_turn;
mod static_vars;
mod stats_cache;
mod stats_compact_init;
mod stats_counts;
mod strict_prefix;
mod timeouts;
mod tool_schema;
mod usage;
mod versions;
mod versions_git;
