#!/usr/bin/env bash
# MPI sweep benchmark (docs/scale-out.md): wall time of one sweep run three
# ways, and the coordinator's cost per task measured with tiny runs.
#
#   bench/mpi_sweep.sh [GOODSIM [MPIRUN]]     (defaults: build/release/cli/goodsim, mpirun)
#
# 1. 400 runs (5 restart times x 80 seeds) of the demo cluster scaled to
#    147,456 chips (576 slices of 256), 7 days, 3 policies:
#    one process x 2 jobs, mpirun -n 2 x 1 job, mpirun -n 4 --oversubscribe x 1 job.
# 2. 4,000 tiny runs (1,024 chips, 1 hour: ~0.1 ms each) and the same sweep
#    with 4 runs: the difference is the marginal cost per task of each path, so
#    the MPI path's minus the one-process path's is the coordinator's (and the
#    messages') cost per task, with start-up taken out.
# Each configuration runs 3 times; wall min and median, and the median CPU
# seconds are printed.
set -euo pipefail
GOODSIM=${1:-build/release/cli/goodsim}
MPIRUN=${2:-mpirun}
SCEN=$(dirname "$0")/../scenarios/demo.json
ROOT=()
[ "$(id -u)" -eq 0 ] && ROOT=(--allow-run-as-root)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Prints "min median cpu" for 3 runs of the command: wall seconds (min,
# median) and the median CPU seconds (user + system, all processes it waited
# for: mpirun's ranks included). On a machine shared with other work the wall
# time follows the CPU share the processes get; the CPU time does not.
time3() {
  local walls=() cpus=()
  for rep in 1 2 3; do
    rm -rf "$WORK/out"
    /usr/bin/time -f "%e %U %S" -o "$WORK/time" "$@" --out "$WORK/out" -q >/dev/null
    read -r wall user sys < "$WORK/time"
    walls+=("$wall")
    cpus+=("$(echo "$user + $sys" | bc -l)")
  done
  local w c
  w=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{v[NR]=$1} END {printf "%.3f %.3f", v[1], v[2]}')
  c=$(printf '%s\n' "${cpus[@]}" | sort -g | awk '{v[NR]=$1} END {printf "%.3f", v[2]}')
  echo "$w $c"
}

report() {  # LABEL RUNS -- COMMAND...
  local label=$1 runs=$2
  shift 3
  read -r tmin tmed cpu < <(time3 "$@")
  printf '%-36s wall min %7.3f s  median %7.3f s   CPU %7.3f s  %7.1f us CPU/run\n' \
    "$label" "$tmin" "$tmed" "$cpu" "$(echo "$cpu * 1000000 / $runs" | bc -l)"
}

BIG=(sweep "$SCEN" --set cluster.chips=147456 --set cluster.spare_slices=36
     --vary policies.0.restart_time=1m,2m,5m,10m,20m --seeds 80)

echo "mpirun start-up alone: $( { /usr/bin/time -f %e "$MPIRUN" "${ROOT[@]}" -n 2 "$GOODSIM" --version >/dev/null; } 2>&1 ) s"
echo "== 400 runs, 147,456 chips, 7 days, 3 policies"
report "1 process x 2 jobs" 400 -- "$GOODSIM" "${BIG[@]}" -j 2
report "mpirun -n 2 x 1 job" 400 -- "$MPIRUN" "${ROOT[@]}" -n 2 "$GOODSIM" "${BIG[@]}" -j 1
report "mpirun -n 4 --oversubscribe x 1" 400 -- \
  "$MPIRUN" "${ROOT[@]}" -n 4 --oversubscribe "$GOODSIM" "${BIG[@]}" -j 1
echo "== 4,000 tiny runs (1,024 chips, 1 hour), and 4 runs for the fixed cost"
for seeds in 1 1000; do
  runs=$((4 * seeds))
  TINY=(sweep "$SCEN" --set cluster.chips=1024 --set cluster.spare_slices=0 --set horizon=1h
        --vary policies.0.restart_time=1m,2m,5m,10m --seeds "$seeds")
  report "1 process x 1 job, $runs runs" "$runs" -- "$GOODSIM" "${TINY[@]}" -j 1
  report "1 process x 2 jobs, $runs runs" "$runs" -- "$GOODSIM" "${TINY[@]}" -j 2
  report "mpirun -n 2 x 1 job, $runs runs" "$runs" -- \
    "$MPIRUN" "${ROOT[@]}" -n 2 "$GOODSIM" "${TINY[@]}" -j 1
  report "mpirun -n 3 --oversub. x 1, $runs runs" "$runs" -- \
    "$MPIRUN" "${ROOT[@]}" -n 3 --oversubscribe "$GOODSIM" "${TINY[@]}" -j 1
done
