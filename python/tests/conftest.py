"""Shared fixtures of the goodsim Python tests (run by ctest, see python/CMakeLists.txt).

ctest sets PYTHONPATH to the package in the build tree, GOODSIM_BINARY to the goodsim
command built beside it and GOODSIM_SOURCE_DIR to the source tree.
"""
import json
import os
import subprocess
import threading
import time

import pytest

SOURCE_DIR = os.environ.get(
    "GOODSIM_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
GOODSIM = os.environ.get("GOODSIM_BINARY", os.path.join(SOURCE_DIR, "build/release/cli/goodsim"))

# A small scenario: 64 chips in 16 slices for 3 days, failures every few hours, two
# policies (so sweeps have a paired table), a loss model (so final_loss has values).
SMALL = {
    "name": "python-small",
    "seed": 3,
    "horizon": "3d",
    "cluster": {"chips": 64, "chips_per_host": 4, "hosts_per_slice": 1},
    "job": {"params": 1e9, "tokens_per_step": 1e6, "step_time": "1s"},
    "failures": [{"type": "exponential_failures", "mtbf": "30d", "repair_time": "2h"}],
    "policies": [{"name": "dp", "type": "data_parallel", "restart_time": "10m"},
                 {"name": "elastic", "type": "elastic_data_parallel"}],
    "loss": {"type": "scaling_law"},
    "outputs": {"sample_interval": "6h"},
}


def scenario_path(name):
    """A shipped scenario file."""
    return os.path.join(SOURCE_DIR, "scenarios", name)


def goodsim_cli(*args):
    """Runs the goodsim command; fails the test on a non-zero exit."""
    result = subprocess.run([GOODSIM, *args], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture
def small_file(tmp_path):
    """SMALL written to a file."""
    path = tmp_path / "small.json"
    path.write_text(json.dumps(SMALL))
    return str(path)


def longest_main_thread_stall(call, *args, **kwargs):
    """Runs call(*args, **kwargs) on another thread while this thread wakes every 2 ms, and
    returns (longest gap between two wake-ups, duration of the call) in seconds. A call that
    holds the GIL throughout leaves this thread no wake-up: the gap is the whole call."""
    worker = threading.Thread(target=call, args=args, kwargs=kwargs)
    start = time.perf_counter()
    last = start
    longest = 0.0
    worker.start()
    while worker.is_alive():
        time.sleep(0.002)
        now = time.perf_counter()
        longest = max(longest, now - last)
        last = now
    worker.join()
    return longest, time.perf_counter() - start


def assert_gil_released(call, scenario, **kwargs):
    """The main thread keeps running while call simulates: its longest stall is under a
    third of the call's duration. The seeds double until the call lasts 0.2 s, so a fast
    machine cannot make the check vacuous and a slow one cannot make it fail."""
    seeds = 2
    while True:
        stall, duration = longest_main_thread_stall(call, scenario, seeds=seeds, **kwargs)
        if duration >= 0.2 or seeds >= 1024:
            break
        seeds *= 2
    assert duration >= 0.2, f"the call took only {duration:.3f} s with {seeds} seeds"
    assert stall < duration / 3, f"main thread stalled {stall:.3f} s of a {duration:.3f} s call"


# Heavy enough to take a good fraction of a second per run.
LONG = dict(SMALL, horizon="1y", cluster={"chips": 4096, "chips_per_host": 4, "hosts_per_slice": 1},
            failures=[{"type": "exponential_failures", "mtbf": "2y", "repair_time": "2h"}])
