#!/usr/bin/env bash
# MPI sweep benchmark (docs/scale-out.md): wall time of one sweep run three
# ways, and the coordinator's cost per task measured with tiny runs.
#
#   bench/mpi_sweep.sh [GOODSIM [MPIRUN]]     (defaults: build/release/cli/goodsim, mpirun)
#
# 1. 400 runs (5 restart times x 80 seeds) of the demo cluster scaled to
#    147,456 chips (576 slices of 256), 7 days, 3 policies:
#    one process x 2 jobs, mpirun -n 2 x 1 job, mpirun -n 4 --oversubscribe x 1 job.
# 2. 4,000 tiny runs (1,024 chips, 1 hour: ~0.1 ms each) to expose the per-task
#    overhead of the MPI path against the same sweep in one process.
# Each configuration runs 3 times; min and median wall seconds are printed.
set -euo pipefail
GOODSIM=${1:-build/release/cli/goodsim}
MPIRUN=${2:-mpirun}
SCEN=$(dirname "$0")/../scenarios/demo.json
ROOT=()
[ "$(id -u)" -eq 0 ] && ROOT=(--allow-run-as-root)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Prints "min median" of the wall seconds of 3 runs of the command.
time3() {
  local times=()
  for rep in 1 2 3; do
    rm -rf "$WORK/out"
    local t0 t1
    t0=$(date +%s.%N)
    "$@" --out "$WORK/out" -q >/dev/null
    t1=$(date +%s.%N)
    times+=("$(echo "$t1 - $t0" | bc -l)")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{v[NR]=$1} END {printf "%.3f %.3f\n", v[1], v[2]}'
}

report() {  # LABEL RUNS -- COMMAND...
  local label=$1 runs=$2
  shift 3
  read -r tmin tmed < <(time3 "$@")
  printf '%-34s min %8.3f s  median %8.3f s  %8.1f us/run (median)\n' "$label" "$tmin" "$tmed" \
    "$(echo "$tmed * 1000000 / $runs" | bc -l)"
}

BIG=(sweep "$SCEN" --set cluster.chips=147456 --set cluster.spare_slices=36
     --vary policies.0.restart_time=1m,2m,5m,10m,20m --seeds 80)
TINY=(sweep "$SCEN" --set cluster.chips=1024 --set cluster.spare_slices=0 --set horizon=1h
      --vary policies.0.restart_time=1m,2m,5m,10m --seeds 1000)

echo "mpirun start-up alone: $( { /usr/bin/time -f %e "$MPIRUN" "${ROOT[@]}" -n 2 "$GOODSIM" --version >/dev/null; } 2>&1 ) s"
echo "== 400 runs, 147,456 chips, 7 days, 3 policies"
report "1 process x 2 jobs" 400 -- "$GOODSIM" "${BIG[@]}" -j 2
report "mpirun -n 2 x 1 job" 400 -- "$MPIRUN" "${ROOT[@]}" -n 2 "$GOODSIM" "${BIG[@]}" -j 1
report "mpirun -n 4 --oversubscribe x 1 job" 400 -- \
  "$MPIRUN" "${ROOT[@]}" -n 4 --oversubscribe "$GOODSIM" "${BIG[@]}" -j 1
echo "== 4,000 tiny runs (1,024 chips, 1 hour)"
report "1 process x 1 job" 4000 -- "$GOODSIM" "${TINY[@]}" -j 1
report "1 process x 2 jobs" 4000 -- "$GOODSIM" "${TINY[@]}" -j 2
report "mpirun -n 2 x 1 job" 4000 -- "$MPIRUN" "${ROOT[@]}" -n 2 "$GOODSIM" "${TINY[@]}" -j 1
report "mpirun -n 3 --oversubscribe x 1 job" 4000 -- \
  "$MPIRUN" "${ROOT[@]}" -n 3 --oversubscribe "$GOODSIM" "${TINY[@]}" -j 1
