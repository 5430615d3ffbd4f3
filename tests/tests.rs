//! The one integration-test binary: every test runs the real `brief` binary or links the
//! library, and shares the helpers in `common`, `harness` and `loopback` (one link, one build).

// A test that fails by a panic says where; `clippy.toml`'s allowance covers `#[test]`
// functions only, not the helpers they share.
#![allow(clippy::unwrap_used)]

mod common;
#[macro_use]
mod harness;
mod loopback;

mod align;
mod align_tail;
mod align_wires;
mod bundled_briefs;
mod ccr_cli;
mod ccr_records;
mod ccr_store;
mod cli_hostile_inputs;
mod compose;
mod compress;
mod compress_batch;
mod compress_library;
mod contract;
mod count;
mod credentials;
// The crash tests need the fault switch, which only debug builds have.
#[cfg(debug_assertions)]
mod crash;
mod dashboard;
mod digest;
mod docs;
mod first_hour;
mod fleet;
mod fleet_insert_race;
mod fleet_usage;
mod guard_accept;
mod guard_agree;
mod guard_bundled;
mod guard_changes;
mod guard_cli;
mod guard_coverage;
mod guard_coverage_props;
mod guard_notation;
mod guard_props;
mod guard_real;
mod guard_statements;
mod guard_table;
mod guard_telegraphic;
mod guard_weakening;
mod harden_bounds;
mod harden_spool;
mod hostile_linear;
mod import;
mod import_auto;
mod init_and_hints;
mod input_bounds;
mod json_snapshots;
mod library_reports;
mod limits;
mod list_prices;
mod load_errors;
mod load_listing;
mod lock_check;
mod manifest_and_messages;
mod mcp_parity;
mod mcp_protocol;
mod mcp_same_as_cli;
mod mcp_same_as_cli_session;
mod package;
mod planted_links;
mod prefix_identity;
mod probe;
mod prop_loader;
mod prop_parsers;
mod provider;
mod provider_failures;
mod provider_hostile_server;
mod provider_wires;
mod proxy;
mod proxy_encodings;
mod proxy_faults;
mod proxy_limits;
mod proxy_memory;
mod proxy_prices;
mod proxy_records;
mod proxy_wires;
mod quiet;
mod readme;
mod reports;
mod review_batch;
mod review_terminal;
mod samples;
mod samples_compress;
mod session;
mod session_compact;
#[cfg(debug_assertions)]
mod session_crash;
mod session_gate_ops;
mod session_loop;
mod session_mcp;
mod session_pending;
mod session_planted_files;
mod session_props;
mod session_render_order;
mod session_responses;
mod session_settings;
mod session_subagents;
mod session_turn;
mod static_vars;
mod stats_cache;
mod stats_compact_init;
mod stats_counts;
mod strict_prefix;
mod table_alignment;
mod terminal_sanitising;
mod timeouts;
mod tokenizer_same_as_bpe_openai;
mod tool_schema;
mod traffic_sessions;
mod usage;
mod usage_html;
mod usage_library;
mod versions;
mod versions_git;
