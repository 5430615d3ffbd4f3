#!/usr/bin/env bash
# The guard scored on the hand-labelled real rewrites in tests/guard_real/ (pairs, labels,
# SOURCES.md): runs the integration test that ports the shared score.py and prints its table
# and last line ("guard-real: instructions P=.. R=.. (tp/fp/fn), changes P=.. R=..").
#
#   scripts/guard_real_score.sh            the table, the misses, the score, then the targets' verdict
#   scripts/guard_real_score.sh -v         also every report, right or false (GUARD_REAL_VERBOSE=1)
#
# The targets (precision, recall, ...) are the constants at the top of tests/guard_real.rs.
# Uses $CARGO_TARGET_DIR like any cargo command.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "-v" ]; then
  export GUARD_REAL_VERBOSE=1
fi
exec cargo test --test tests guard_real -- --nocapture
