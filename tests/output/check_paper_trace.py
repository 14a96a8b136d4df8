#!/usr/bin/python3
"""The trace of a full-scale run stays fair and small (run by ctest).

Usage: check_paper_trace.py GOODSIM SCENARIO OUTDIR MAX_MB

Runs `goodsim run SCENARIO --trace` and checks trace.json.gz: it is at most MAX_MB
megabytes, parses, stays within its record budget, has one process per policy plus the
shared cluster process, and every policy has spans in every tenth of the run (none starved
by another, none stopped early) up to the end of its run.
"""
import gzip
import json
import os
import subprocess
import sys


def main(goodsim, scenario, out, max_mb):
    result = subprocess.run([goodsim, "run", scenario, "--trace", "--quiet", "--out", out],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    path = os.path.join(out, "trace.json.gz")
    size_mb = os.path.getsize(path) / 1e6
    assert size_mb <= max_mb, f"{path}: {size_mb:.1f} MB > {max_mb} MB"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        trace = json.load(f)
    with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
        summary = json.load(f)
    meta, events = trace["metadata"], trace["traceEvents"]
    records = sum(1 for e in events if e["ph"] in ("X", "i"))
    processes = {e["pid"]: e["args"]["name"] for e in events
                 if e["ph"] == "M" and e["name"] == "process_name"}
    policies = [p["name"] for p in summary["policies"]]
    assert sorted(processes.values()) == sorted(policies + ["cluster"]), processes
    slack = 16 * len(processes) + 64 * len(processes)  # kSlack and one coalesced span per track
    assert records <= meta["max_records"] + slack, (records, meta)
    horizon_us = summary["horizon_s"] * 1e6
    tenths = {pid: set() for pid in processes}
    last_end = {pid: 0.0 for pid in processes}
    for e in events:
        if e["ph"] == "X":
            for k in range(int(10 * e["ts"] / horizon_us), int(10 * (e["ts"] + e["dur"]) / horizon_us) + 1):
                tenths[e["pid"]].add(min(k, 9))
            last_end[e["pid"]] = max(last_end[e["pid"]], e["ts"] + e["dur"])
    for pid, name in processes.items():
        if name == "cluster":
            continue
        assert tenths[pid] == set(range(10)), f"{name}: spans only in tenths {sorted(tenths[pid])}"
        assert last_end[pid] >= 0.999 * horizon_us, f"{name}: spans end at {last_end[pid]} us"
    print(f"{path}: {size_mb:.2f} MB, {records} spans and instants "
          f"({meta['coalesced_spans']} spans coalesced, {meta['dense_buckets']} dense buckets), "
          f"{len(policies)} policies with spans throughout")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])))
