"""Ctrl-C during a run or a sweep: KeyboardInterrupt soon after, and the module still works."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import LONG, SMALL

CHILD = r"""
import json, sys, time
import goodsim
what, scenario, small = sys.argv[1], goodsim.load(json.loads(sys.argv[2])), json.loads(sys.argv[3])
print("started", flush=True)
try:
    if what == "sweep":
        goodsim.sweep(scenario, seeds=400, jobs=2)
    else:
        goodsim.run(scenario)
    print("finished", flush=True)
    sys.exit(1)
except KeyboardInterrupt:
    print("interrupted", flush=True)
# Everything was stopped and joined: the module is usable again.
print("after", goodsim.run(small).summary["policies"][0]["fingerprint"], flush=True)
"""


@pytest.mark.parametrize("what", ["run", "sweep"])
def test_ctrl_c_raises_keyboard_interrupt(what):
    # A run of 40 policies of about a second each (Decoupled DiLoCo pays events per
    # step), or a sweep of 400 seeds x 40 of them: many times longer than the test
    # waits, while one policy run (what an interrupt waits for) stays short.
    scenario = dict(LONG, job=dict(LONG["job"], step_time="30s"),
                    policies=[{"name": f"dd{i}", "type": "decoupled_diloco", "learners": 4}
                              for i in range(40)])
    child = subprocess.Popen([sys.executable, "-c", CHILD, what, json.dumps(scenario),
                              json.dumps(SMALL)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=os.environ.copy())
    assert child.stdout.readline().strip() == "started"
    time.sleep(0.5)
    child.send_signal(signal.SIGINT)
    try:
        out, err = child.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        pytest.fail("Ctrl-C did not stop the simulation")
    assert child.returncode == 0, err
    lines = out.split("\n")
    assert lines[0] == "interrupted"
    assert lines[1].startswith("after ")
