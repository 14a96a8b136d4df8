#!/usr/bin/python3
"""goodsim report in a real browser: every kind of report (run, run --seeds, sweep,
calibrate, diff, solve) opens in headless Chromium with no console error, no uncaught
exception and every image loaded (naturalWidth > 0); a screenshot of each is saved as
WORKDIR/screenshots/KIND.png. A deliberately broken page must fail the same checks, so
the test can fail.

Usage: browser_report.py GOODSIM_BINARY WORKDIR   (run by ctest, label "browser")
"""
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "analysis"))
import cdp  # noqa: E402
import report_fixtures  # noqa: E402

IMAGES = ("JSON.stringify([...document.images].map(i => "
          "({alt: i.alt, complete: i.complete, width: i.naturalWidth})))")
BROKEN_PAGE = ("<!DOCTYPE html><html><body><img alt='broken' src='data:image/png;base64,AAAA'>"
               "<script>console.error('planted error')</script></body></html>")


def check_page(browser, path):
    """Problems of the page at `path` (empty: none), and its number of images."""
    import json
    browser.open("file://" + os.path.abspath(path))
    images = json.loads(browser.evaluate(IMAGES))
    problems = browser.errors()
    problems += [f"image {i['alt']!r} did not load" for i in images
                 if not i["complete"] or i["width"] <= 0]
    return problems, len(images)


def main(argv):
    goodsim, workdir = os.path.abspath(argv[0]), os.path.abspath(argv[1])
    binary = cdp.find_browser()
    if binary is None:
        print("FAIL: no headless Chromium (chromium-headless-shell); install it with "
              "scripts/install-deps.sh")
        return 1
    shutil.rmtree(workdir, ignore_errors=True)
    shots = os.path.join(workdir, "screenshots")
    os.makedirs(shots)
    start = time.monotonic()
    dirs = report_fixtures.make_all(goodsim, os.path.join(workdir, "outputs"))
    pages = {}
    for kind, directory in dirs.items():
        pages[kind] = os.path.join(workdir, f"{kind}.html")
        result = subprocess.run([goodsim, "report", directory, "--out", pages[kind]],
                                capture_output=True, text=True, check=False)
        if result.returncode != 0:
            print(f"FAIL: goodsim report {directory}: exit {result.returncode}: {result.stderr}")
            return 1
    broken = os.path.join(workdir, "broken.html")
    with open(broken, "w", encoding="utf-8") as f:
        f.write(BROKEN_PAGE)
    print(f"outputs and reports made in {time.monotonic() - start:.1f}s")
    failures, passed = [], 0
    browser = cdp.Browser(binary)
    try:
        problems, _ = check_page(browser, broken)
        if not any("planted error" in p for p in problems) or \
                not any("'broken' did not load" in p for p in problems):
            failures.append(f"the broken page was not caught: {problems}")
        for kind, page in pages.items():
            problems, images = check_page(browser, page)
            browser.screenshot(os.path.join(shots, f"{kind}.png"))
            if images == 0:
                problems.append("no images")
            if problems:
                failures.append(f"{kind}: {'; '.join(problems)}")
            else:
                passed += 1
                print(f"ok: {kind} report, {images} image(s) loaded, screenshot "
                      f"{os.path.join(shots, kind + '.png')}")
    finally:
        browser.close()
    for failure in failures:
        print("FAIL: " + failure)
    print(f"{time.monotonic() - start:.1f}s in all")
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
