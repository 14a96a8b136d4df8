#!/usr/bin/env bash
# The cost of `goodsim run --trace` on a full-scale scenario: wall time of
# `goodsim run SCENARIO -q` without and with --trace (min and median of N runs
# each, alternating), the trace's size and its record counts.
# usage: bench/trace_cost.sh GOODSIM [SCENARIO] [N]   (default scenarios/paper-1.2m.json, 3)
set -euo pipefail
goodsim=$1
scenario=${2:-$(dirname "$0")/../scenarios/paper-1.2m.json}
n=${3:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

wall() {  # seconds of one run with the given extra arguments
  local TIMEFORMAT=%R
  { time "$goodsim" run "$scenario" -q --out "$out/run" "$@" >/dev/null 2>&1; } 2>&1
}

plain=() traced=()
for _ in $(seq "$n"); do
  plain+=("$(wall)")
  traced+=("$(wall --trace)")
done
stats() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {printf "min %.2f s, median %.2f s", v[1], v[int((NR+1)/2)]}'; }
echo "without --trace: $(stats "${plain[@]}")"
echo "with --trace:    $(stats "${traced[@]}")"
python3 - "$out/run/trace.json.gz" <<'PY'
import gzip, json, os, sys
print(f"trace.json.gz: {os.path.getsize(sys.argv[1]) / 1e6:.2f} MB")
t = json.load(gzip.open(sys.argv[1], "rt"))
m = t["metadata"]
print(f"records {m['records_written']} of {m['max_records']}, coalesced spans "
      f"{m['coalesced_spans']}, dense buckets {m['dense_buckets']} ({m['dense_bucket']}), "
      f"dropped instants {sum(m.get('dropped_instants', {}).values())}")
PY
