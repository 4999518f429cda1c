#!/usr/bin/env bash
# Run the official JSON Schema Test Suite (../shared/json-schema-test-suite) through sojx's own
# schema path and print the pass counts per draft (a Markdown table, on stderr).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --test cli conformance::json_schema_test_suite -- --nocapture --exact 2>&1 \
  | grep -E '^(\||fail:|test result)'
