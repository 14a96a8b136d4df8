#!/usr/bin/python3
"""Hostile inputs through the goodsim binary, each under an address-space and a time limit:
the exit code and the message must be the expected ones (never an abort, a hang or an
unbounded use of memory, disk or time).

    resource_limits.py GOODSIM SOURCE_DIR WORKDIR

Each case prints one line; the script exits 1 when any case fails. It runs in a few
seconds on two cores.
"""
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time

MEMORY = 1 << 30  # address space of each goodsim process
TIMEOUT = 20      # seconds per case (each takes well under one)


def limits(fsize=None):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
        if fsize is not None:
            # A full disk: writes past `fsize` bytes fail with EFBIG instead of killing.
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return apply


class Cases:
    def __init__(self, goodsim, source, work):
        self.goodsim, self.source, self.work = goodsim, source, work
        self.failed = []

    def run(self, args, stdin=None, stdout=subprocess.PIPE, fsize=None, timeout=TIMEOUT):
        return subprocess.run([self.goodsim] + args, cwd=self.work, stdin=stdin, stdout=stdout,
                              stderr=subprocess.PIPE, preexec_fn=limits(fsize), timeout=timeout)

    def check(self, name, ok, detail=""):
        print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f"\n     {detail}"))
        if not ok:
            self.failed.append(name)

    def expect(self, name, proc, code, fragment, stream="err"):
        text = (proc.stderr if stream == "err" else proc.stdout or b"").decode(errors="replace")
        ok = proc.returncode == code and fragment in text
        self.check(name, ok, f"exit {proc.returncode} (expected {code}); {stream} lacks "
                              f"{fragment!r}:\n{text[-2000:]}")

    def path(self, *parts):
        return os.path.join(self.source, *parts)


def small_scenario(horizon="2h"):
    return {"name": "small", "seed": 1, "horizon": horizon,
            "cluster": {"chips": 64, "chips_per_host": 4, "hosts_per_slice": 4},
            "job": {"params": 1e9, "tokens_per_step": 1e6, "step_time": "1s"},
            "failures": [{"type": "exponential_failures", "mtbf": "2h",
                          "repair_time": "10m"}],
            "policies": [{"name": "dp", "type": "data_parallel", "restart_time": "1m"}]}


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def inputs(c):
    # /dev/zero as a scenario: stops at the 64 MiB limit, naming the file.
    c.expect("validate /dev/zero", c.run(["validate", "/dev/zero"]), 2,
             "/dev/zero: more than 67108864 bytes (64 MiB)")
    zero_trace = small_scenario()
    zero_trace["failures"] = [{"type": "trace_replay", "file": "/dev/zero"}]
    c.expect("trace /dev/zero", c.run(["validate", write(os.path.join(c.work, "z.json"),
                                                         json.dumps(zero_trace))]),
             2, 'trace file "/dev/zero": more than 67108864 bytes')
    # Standard input, and a FIFO with a writer: read once, as a stream.
    with open(c.path("scenarios", "demo.json"), "rb") as f:
        c.expect("run - < demo.json", c.run(["validate", "-"], stdin=f), 0, "ok: -",
                 stream="out")
    fifo = os.path.join(c.work, "scenario.fifo")
    if os.path.exists(fifo):
        os.remove(fifo)
    os.mkfifo(fifo)
    text = json.dumps(small_scenario())
    writer = threading.Thread(target=lambda: write(fifo, text))
    writer.start()
    c.expect("run FIFO", c.run(["run", fifo, "-q", "--out", "fifo-out"]), 0, "")
    writer.join()
    c.check("run FIFO wrote its summary", os.path.exists(os.path.join(c.work, "fifo-out",
                                                                      "summary.json")))


def deep_and_many(c):
    regress = c.path("tests", "regress")
    c.expect("300 overlapping outages run", c.run(["run", os.path.join(regress,
                                                                      "deep_overlap_300.json"),
                                                   "-q", "--out", "deep"]), 0, "")
    # 100,000 distinct causes: linear, about a second (quadratic took minutes).
    rows = ["time,duration,target,cause"]
    rows += [f"{i},1,chip:{i % 64},cause-{i}" for i in range(100_000)]
    write(os.path.join(c.work, "causes.csv"), "\n".join(rows) + "\n")
    s = small_scenario("2d")
    s["failures"] = [{"type": "trace_replay", "file": "causes.csv"}]
    start = time.monotonic()
    proc = c.run(["run", write(os.path.join(c.work, "causes.json"), json.dumps(s)), "-q",
                  "--out", "causes"], timeout=30)
    took = time.monotonic() - start
    c.expect("100,000 distinct causes run", proc, 0, "")
    c.check(f"100,000 distinct causes in {took:.1f}s (limit 15s)", took < 15)


def outputs(c):
    demo = c.path("scenarios", "demo.json")
    with open("/dev/full", "wb") as full:
        c.expect("run > /dev/full", c.run(["run", demo, "--out", "full"], stdout=full), 2,
                 "cannot write to standard output: No space left on device")
    c.expect("--out on a full disk", c.run(["run", demo, "-q", "--events", "--out", "fsize"],
                                            fsize=4096), 2, "fsize/")
    left = [n for n in os.listdir(os.path.join(c.work, "fsize")) if ".tmp-" in n]
    c.check("--out on a full disk leaves no temporary file", not left, str(left))
    proc = c.run(["run", demo, "-q", "--events", "--max-output", "64KiB", "--out", "capped"])
    c.expect("--max-output", proc, 0, "stopped at --max-output 64KiB")
    events = os.path.join(c.work, "capped", "events.jsonl")
    with open(events, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f]  # every line is JSON
    c.check("--max-output: capped and marked", os.path.getsize(events) <= 64 * 1024
            and lines[-1].get("truncated") is True, f"{os.path.getsize(events)} bytes")
    # A second run into the same directory without --events removes the first one's log.
    proc = c.run(["run", demo, "-q", "--out", "capped"])
    c.expect("re-run removes the earlier events.jsonl", proc, 0, "events.jsonl")
    c.check("re-run: no events.jsonl left", not os.path.exists(events))


def interrupt(c):
    demo = c.path("scenarios", "demo.json")
    for sig in (signal.SIGINT, signal.SIGTERM):
        out = os.path.join(c.work, f"sig{int(sig)}")
        shutil.rmtree(out, ignore_errors=True)
        proc = subprocess.Popen([c.goodsim, "run", demo, "-q", "--events", "--set",
                                 "horizon=10y", "--set", "failures.0.mtbf=0.5y", "--max-events",
                                 "1e12", "--out", out],
                                stderr=subprocess.PIPE, preexec_fn=limits())
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not any(
                ".tmp-" in n for n in (os.listdir(out) if os.path.isdir(out) else [])):
            time.sleep(0.05)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=TIMEOUT)
        left = [n for n in os.listdir(out) if ".tmp-" in n] if os.path.isdir(out) else []
        c.check(f"{sig.name}: exit by the signal, temporary files removed, said so",
                proc.returncode == -sig and not left and b"removed 1 temporary file" in err,
                f"exit {proc.returncode}, left {left}, stderr {err[-500:]!r}")


def arguments(c):
    c.expect("runn", c.run(["runn"]), 2, 'unknown command "runn"; did you mean "run"?')
    c.expect("--seeds 0", c.run(["run", "--seeds", "0"]), 2,
             'expected a whole number >= 1, got "0"')
    c.expect("--seed -1", c.run(["run", "--seed", "-1"]), 2,
             'expected a seed from 0 to 2^63 - 1, got "-1"')
    c.expect("--seeds over --max-memory", c.run(["run", c.path("scenarios", "demo.json"),
                                                 "--seeds", "1000000", "--max-memory",
                                                 "64MiB", "--out", "seeds"]),
             2, "--seeds: 1000000 seeds")


def main(argv):
    goodsim, source, work = argv[1:4]
    os.makedirs(work, exist_ok=True)
    c = Cases(os.path.abspath(goodsim), os.path.abspath(source), os.path.abspath(work))
    for group in (inputs, deep_and_many, outputs, interrupt, arguments):
        try:
            group(c)
        except subprocess.TimeoutExpired as e:
            c.check(f"{group.__name__}: {e.cmd[1:3]} finished", False, "timed out")
    if c.failed:
        print(f"{len(c.failed)} failed: {', '.join(c.failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
