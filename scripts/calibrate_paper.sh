#!/bin/sh
# Reruns the calibration of scenarios/paper-table1.json from the eight cells of the
# Decoupled DiLoCo paper's Table 1 that goodsim may calibrate on
# (scenarios/validation/paper-table1.csv), choosing the recovery structure by the data:
#   - data_parallel's failure during a restart: absorb, extend or restart;
#   - a failed chip holds up data_parallel until it is repaired, or its slice is replaced
#     at once from a pool of spares (scenarios/validation/paper-table1/*.json);
#   - elastic pauses (elastic DP and every Decoupled learner, together): a slice change
#     during a pause coalesces into it or restarts it;
#   - returning slices rejoin at once, or together every 5 minutes (batched upscales);
# and fitting, for every structure, data_parallel's restart time, one pause for every
# elastic downscale and upscale, and the failure-return delay (the repair time).
# The 300k, 600k and 1.2M columns are probes: predictions, never targets.
#
# Usage: scripts/calibrate_paper.sh [extra calibrate options]
#   GOODSIM (default build/release/cli/goodsim), JOBS (default 2),
#   OUT (default out/paper-table1-calibrate)
set -eu
GOODSIM=${GOODSIM:-build/release/cli/goodsim}
JOBS=${JOBS:-2}
OUT=${OUT:-out/paper-table1-calibrate}
V=scenarios/validation
PAUSES=""
MODES=""
for p in 1 2 3 4 5; do
  PAUSES="$PAUSES${PAUSES:+,}policies.$p.downscale_time,policies.$p.upscale_time"
  MODES="$MODES${MODES:+,}policies.$p.during_pause"
done
exec "$GOODSIM" calibrate scenarios/paper-table1.json --target "$V/paper-table1.csv" \
  --fit "policies.0.restart_time=1s..10m" \
  --fit "$PAUSES=1s..5m" \
  --fit "failures.0.repair_time=1s..1h" \
  --choose "policies.0.failure_during_restart=absorb|extend|restart" \
  --choose "recovery=@$V/paper-table1/wait-for-repair.json|@$V/paper-table1/replace-from-pool.json" \
  --choose "$MODES=coalesce|restart" \
  --choose "upscale=@$V/paper-table1/upscale-at-once.json|@$V/paper-table1/upscale-every-5m.json" \
  --probe "cluster.chips=300000" --probe "cluster.chips=600000" \
  --probe "cluster.chips=1200000" \
  --seeds 2 --restarts 0 --jobs "$JOBS" --out "$OUT" "$@"
