"""How fast ``gops explore`` starts and how fast its page renders a position.

    python benchmarks/explore_render.py                 # stored 8-card solution, 20 positions
    python benchmarks/explore_render.py --cards 9 --positions 40 --screenshot docs/img/explorer.png

Starts ``gops explore --solution FILE --no-browser`` in a fresh process and
times it from spawn to the first answered request (start-up: imports, loading
the file, answering the opening position once). Then drives Debian's Chromium
(headless) over random reachable positions read from the stored solution and
reports, per position, the page's own figures:

- ``load->render``: from the page's ``DOMContentLoaded`` to the value, bars and
  heatmap drawn (the request to ``/api/position`` included);
- ``nav->render``: from the start of navigation (HTML, CSS and JS loaded too);
- ``click->render``: a click on a card control to the new position drawn;
- ``HTTP /api/position``: one request from Python, no browser (server and HTTP).

Machine load from other jobs makes these noisy: medians and maxima are printed.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def random_position(rng, n, k):
    """A reachable random-order carry position with k cards left (no carried pot)."""
    hand_a = sorted(rng.sample(range(1, n + 1), k))
    hand_b = sorted(rng.sample(range(1, n + 1), k))
    prizes = sorted(rng.sample(range(1, n + 1), k))
    revealed = prizes.pop(rng.randrange(k))
    out_of_play = n * (n + 1) // 2 - sum(prizes) - revealed
    # |diff| + 1 stays reachable, so the benchmark's click on "+" gives a valid position
    return {"hand_a": ",".join(map(str, hand_a)), "hand_b": ",".join(map(str, hand_b)), "pot": revealed,
            "prizes": ",".join(map(str, prizes)), "diff": rng.randint(-(out_of_play - 1), out_of_play - 1)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=8)
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--screenshot", default=None, help="save a screenshot of the page here")
    args = ap.parse_args(argv)
    from test_explore_browser import chrome, find_browser
    from selenium.webdriver.common.by import By

    work = Path(tempfile.mkdtemp(prefix="gops-explore-bench-"))
    sol = work / f"c{args.cards}.gops"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    gops = [sys.executable, "-c", "from gops_solver.cli.commands import main; main()"]
    subprocess.run(gops + ["solve", "--cards", str(args.cards), "--out", str(sol), "-q"], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    t0 = time.perf_counter()
    proc = subprocess.Popen(gops + ["explore", "--solution", str(sol), "--port", "0", "--no-browser"],
                            stdout=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    base = line.split()[3].rstrip("/")
    with urllib.request.urlopen(base + "/api/info") as r:
        r.read()
    startup = time.perf_counter() - t0
    found = find_browser()
    if found is None:
        sys.exit("error: Chromium and chromedriver not found: apt-get install chromium chromium-driver")
    driver = chrome(str(work / "profile"), *found)
    rng = random.Random(args.seed)
    rules = {"cards": args.cards, "tie": "carry", "objective": "points", "order": "random"}
    loads, navs, clicks, http = [], [], [], []
    # k < n: the opening has diff 0 only, and the page's click moves the diff by one
    plan = [random_position(rng, args.cards, rng.randint(2, args.cards - 1)) for _ in range(2 * args.positions)]
    plan, other = plan[:args.positions], plan[args.positions:]
    for pos in other:  # positions the page will not ask for: uncached, like the page's
        t = time.perf_counter()
        with urllib.request.urlopen(f"{base}/api/position?{urlencode({**rules, **pos})}") as r:
            r.read()
        http.append((time.perf_counter() - t) * 1000)
    try:
        def rendered(after):
            while True:
                body = driver.find_element(By.TAG_NAME, "body")
                if int(body.get_attribute("data-renders")) > after and body.get_attribute("data-state") != "busy":
                    return body.get_attribute("data-state")
                time.sleep(0.005)

        for pos in plan:
            driver.get(f"{base}/?{urlencode({**rules, **pos})}")
            state = rendered(0)
            t = driver.execute_script("return window.gopsTimings")
            if state != "ready":
                continue
            loads.append(t["lastRenderMs"])
            navs.append(t["loaded"] + t["lastRenderMs"])
            driver.find_element(By.ID, "diff-plus").click()  # a new position: score difference + 1
            rendered(1)
            clicks.append(driver.execute_script("return window.gopsTimings")["lastRenderMs"])
        if args.screenshot:
            shot(driver, base, rules, args.screenshot, By)
    finally:
        driver.quit()
        proc.terminate()
        proc.wait()
        shutil.rmtree(work, ignore_errors=True)
    print(f"gops explore start-up (spawn to first answer, {args.cards}-card stored solution): {startup:.2f} s")
    print(f"positions rendered: {len(loads)} of {args.positions}")
    print("| figure | median ms | max ms |")
    print("|---|---:|---:|")
    for name, xs in (("HTTP /api/position (no browser)", http), ("load->render", loads), ("nav->render", navs),
                     ("click->render", clicks)):
        print(f"| {name} | {statistics.median(xs):.1f} | {max(xs):.1f} |")


def shot(driver, base, rules, path, By):
    """The page at a mid-game position, both bids chosen, the first round shown."""
    n = rules["cards"]
    pos = {"hand_a": "2,3,5,7,8", "hand_b": "1,4,5,6,8", "pot": 7, "prizes": "1,3,5,8", "diff": 2} if n == 8 \
        else random_position(random.Random(0), n, min(n, 5))
    driver.set_window_size(1400, 1440)  # the first-round view and its legend in the picture
    driver.get(f"{base}/?{urlencode({**rules, **pos})}")
    while driver.find_element(By.TAG_NAME, "body").get_attribute("data-state") != "ready":
        time.sleep(0.02)
    cells = driver.find_elements(By.CSS_SELECTOR, "#heatmap g.cell")
    cells[len(cells) // 2].click()
    driver.find_elements(By.CSS_SELECTOR, "#next .card:not([disabled])")[0].click()
    driver.find_element(By.ID, "first-btn").click()
    while not driver.find_elements(By.ID, "first-value"):
        time.sleep(0.05)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(path))


if __name__ == "__main__":
    main()
