#!/usr/bin/env bash
# Rewrites tests/golden/shipped_fingerprints.json: runs every scenarios/*.json
# (its own horizon and seed) and stores each policy's fingerprint and a digest
# of its summary; scenarios slower than 2 s are marked "slow" (the test skips
# them unless GOODSIM_FINGERPRINTS_ALL=1). Use a Release build: the "slow"
# marks come from its timings.
#
#   scripts/update-fingerprints.sh [BUILD_DIR]          rewrite the file
#   scripts/update-fingerprints.sh --check-all [BUILD_DIR]  check every scenario, slow ones too
set -euo pipefail
cd "$(dirname "$0")/.."
mode=update
if [[ "${1:-}" == "--check-all" ]]; then
  mode=check
  shift
fi
build="${1:-build/release}"
if ! grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$build/CMakeCache.txt" 2>/dev/null; then
  echo "update-fingerprints: $build is not a configured Release build" >&2
  exit 2
fi
cmake --build "$build" -j2 --target goodsim_tests
if [[ "$mode" == update ]]; then
  GOODSIM_UPDATE_FINGERPRINTS=1 "$build/tests/goodsim_tests" -# "[#test_shipped_fingerprints]" -s \
    | grep -E '^\S+\.json: ' || true
  git --no-pager diff --stat -- tests/golden/shipped_fingerprints.json
else
  GOODSIM_FINGERPRINTS_ALL=1 "$build/tests/goodsim_tests" -# "[#test_shipped_fingerprints]"
fi
