"""The explorer in a real browser: Debian's Chromium driven through its chromedriver.

One server (a stored 6-card solution) and one browser for the module. On a
machine without Chromium or chromedriver these tests skip with one reason
(the install line of the project does not bring a browser); with
``GOPS_BROWSER_TESTS=1`` in the environment they fail instead, and ``.ci/run``
sets it, so CI always runs them.
"""

import json
import os
import shutil
import socket
import tempfile
import threading
import time
import urllib.error
import urllib.request
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import uvicorn
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from gops_solver import Rules, load, solve
from gops_solver.explore.server import Explorer, create_app

REQUIRE_ENV = "GOPS_BROWSER_TESTS"
MISSING = ("Chromium and chromedriver not found: apt-get install chromium chromium-driver, "
           f"or set {REQUIRE_ENV}=1 to require them")
# the closed network of CI machines: nothing may try to reach the internet
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,1000"]
SHARED = {"cards": "6", "tie": "carry", "objective": "points", "order": "random", "hand_a": "1,3,5",
          "hand_b": "2,3,4", "pot": "7", "prizes": "1,4", "diff": "-2"}
WAIT = 60.0  # seconds; a first stage solve includes numba's compilation


def find_browser(which=shutil.which):
    """Paths of Debian's Chromium and its chromedriver, or None when either is missing.

    Parameters
    ----------
    which : callable
        ``shutil.which`` or a stand-in (tests pass one that finds nothing).

    Returns
    -------
    tuple of str or None
        ``(chromium, chromedriver)``.
    """
    chromium, driver = which("chromium"), which("chromedriver")
    return (chromium, driver) if chromium and driver else None


def browser_or_skip(environ=os.environ, which=shutil.which):
    """The browser's paths; skip when missing, fail instead when ``GOPS_BROWSER_TESTS=1``."""
    found = find_browser(which)
    if found is None:
        if environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but {MISSING.split(':')[0]}")
        pytest.skip(MISSING)
    return found


@pytest.fixture(scope="module")
def binaries():
    return browser_or_skip()


def chrome(user_dir, chromium, chromedriver):
    """A headless Chromium with a fresh profile. Raises when the browser cannot start."""
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for flag in FLAGS + [f"--user-data-dir={user_dir}"]:
        opts.add_argument(flag)
    return webdriver.Chrome(options=opts, service=Service(chromedriver))


def serve(explorer):
    """Run the explorer's app on a free port in a thread; yield its base address."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(create_app(explorer), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    t0 = time.time()
    while not srv.started:
        assert time.time() - t0 < WAIT and thread.is_alive(), "the explorer did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def server(binaries, tmp_path_factory):
    path = tmp_path_factory.mktemp("sol") / "c6.gops"
    solve(Rules(6)).save(path)
    yield from serve(Explorer(load(path), str(path)))


@pytest.fixture(scope="module")
def live_server(binaries):
    """No stored solution: every position's sub-game is solved on request."""
    yield from serve(Explorer(rules=Rules(9)))


@pytest.fixture(scope="module")
def browser(binaries):
    user_dir = tempfile.mkdtemp(prefix="gops-chromium-")
    driver = chrome(user_dir, *binaries)
    yield driver
    driver.quit()
    shutil.rmtree(user_dir, ignore_errors=True)


def api(base, path, params):
    with urllib.request.urlopen(f"{base}{path}?{params if isinstance(params, str) else urlencode(params)}") as r:
        return json.loads(r.read())


def wait_render(driver, after):
    """Wait until the page has rendered more than ``after`` times; return its state."""
    t0 = time.time()
    while time.time() - t0 < WAIT:
        body = driver.find_element(By.TAG_NAME, "body")
        if int(body.get_attribute("data-renders")) > after and body.get_attribute("data-state") in ("ready", "error"):
            return body.get_attribute("data-state")
        time.sleep(0.02)
    raise AssertionError("the page did not render in time")


def renders(driver):
    return int(driver.find_element(By.TAG_NAME, "body").get_attribute("data-renders"))


def shown_value(driver):
    return float(driver.find_element(By.ID, "value").get_attribute("data-value"))


def open_page(driver, base, params):
    driver.get(f"{base}/?{urlencode(params)}")
    assert wait_render(driver, 0) == "ready", driver.find_element(By.ID, "error").text


def held(driver, row):
    return [int(b.get_attribute("data-card")) for b in driver.find_elements(By.CSS_SELECTOR, f"#{row} .card.on")]


def test_missing_browser_skips_with_one_reason():
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium chromium-driver") as info:
        browser_or_skip(environ={}, which=lambda name: None)
    assert str(info.value) == MISSING


def test_missing_driver_alone_skips_too():
    which = {"chromium": "/usr/bin/chromium"}.get
    assert find_browser(which) is None
    with pytest.raises(pytest.skip.Exception):
        browser_or_skip(environ={REQUIRE_ENV: "0"}, which=which)


def test_missing_browser_fails_when_required():
    with pytest.raises(pytest.fail.Exception, match="GOPS_BROWSER_TESTS=1 but Chromium and chromedriver not found"):
        browser_or_skip(environ={REQUIRE_ENV: "1"}, which=lambda name: None)


def test_found_browser_gives_both_paths():
    which = {"chromium": "/x/chromium", "chromedriver": "/x/chromedriver"}.get
    assert browser_or_skip(environ={REQUIRE_ENV: "1"}, which=which) == ("/x/chromium", "/x/chromedriver")


def test_browser_is_the_system_chromium(browser):
    assert browser.capabilities["browserName"] in ("chrome", "chromium")


def test_shareable_url_opens_that_position(server, browser):
    open_page(browser, server, SHARED)
    want = api(server, "/api/query", SHARED)
    assert shown_value(browser) == want["value"]
    assert held(browser, "hand-a") == [1, 3, 5] and held(browser, "hand-b") == [2, 3, 4]
    assert held(browser, "prizes") == [1, 4]
    assert browser.find_element(By.ID, "pot").get_attribute("value") == "7"
    assert browser.find_element(By.ID, "diff").get_attribute("value") == "-2"
    # the bar charts and the heatmap show the same numbers
    bars = browser.find_elements(By.CSS_SELECTOR, "#bars-a g.bar")
    assert [int(g.get_attribute("data-card")) for g in bars] == [1, 3, 5]
    cells = browser.find_elements(By.CSS_SELECTOR, "#heatmap g.cell")
    assert len(cells) == 9
    support = browser.find_elements(By.CSS_SELECTOR, "#heatmap rect.support")
    stage = api(server, "/api/position", SHARED)["stage"]
    assert len(support) == len(stage["support_a"]) * len(stage["support_b"])


def test_clicking_cards_changes_the_value(server, browser):
    open_page(browser, server, SHARED)
    before = shown_value(browser)
    n = renders(browser)
    browser.find_element(By.CSS_SELECTOR, "#hand-a .card[data-card='5']").click()
    # hands of 2 and 3 cards: the page shows the server's one-line message
    assert wait_render(browser, n) == "error"
    msg = browser.find_element(By.ID, "error").text
    assert msg == "hands differ in size (2 and 3 cards): both players hold the same number of cards"
    n = renders(browser)
    browser.find_element(By.CSS_SELECTOR, "#hand-a .card[data-card='2']").click()
    assert wait_render(browser, n) == "ready"
    q = parse_qs(urlsplit(browser.current_url).query, keep_blank_values=True)
    assert q["hand_a"] == ["1,2,3"]
    want = api(server, "/api/query", {**SHARED, "hand_a": "1,2,3"})
    assert shown_value(browser) == want["value"] != before


def test_step_into_a_successor_and_back(server, browser):
    open_page(browser, server, SHARED)
    start_url, start_value = browser.current_url, shown_value(browser)
    browser.find_element(By.CSS_SELECTOR, "#bars-a g.bar[data-card='5'] rect.hit").click()
    browser.find_element(By.CSS_SELECTOR, "#bars-b g.bar[data-card='4'] rect.hit").click()
    assert browser.find_element(By.ID, "step-preview").text.startswith("A takes 7")
    browser.find_element(By.CSS_SELECTOR, "#next .card[data-card='4']").click()
    n = renders(browser)
    browser.find_element(By.ID, "step-btn").click()
    assert wait_render(browser, n) == "ready"
    q = {k: v[0] for k, v in parse_qs(urlsplit(browser.current_url).query, keep_blank_values=True).items()}
    # RULES.md: A's 5 beats B's 4 and takes the pot of 7; the 4 is revealed next
    assert (q["hand_a"], q["hand_b"], q["pot"], q["prizes"], q["diff"]) == ("1,3", "2,3", "4", "1", "5")
    assert shown_value(browser) == api(server, "/api/query", q)["value"]
    crumbs = browser.find_elements(By.CSS_SELECTOR, "#breadcrumb a.crumb, #breadcrumb .current")
    assert [c.text for c in crumbs] == ["start", "A 5 · B 4 · prize 4"]
    # a tie in the next round carries the pot; choose both bids in the heatmap
    browser.find_element(By.CSS_SELECTOR, "#heatmap g.cell[data-a='3'][data-b='3']").click()
    assert browser.find_element(By.ID, "step-preview").text.startswith("tie: the pot of 4 carries")
    n = renders(browser)
    browser.find_element(By.ID, "step-btn").click()  # the only hidden prize is chosen already
    assert wait_render(browser, n) == "ready"
    q2 = {k: v[0] for k, v in parse_qs(urlsplit(browser.current_url).query, keep_blank_values=True).items()}
    assert (q2["hand_a"], q2["hand_b"], q2["pot"], q2["prizes"]) == ("1", "2", "5", "")
    # back to the start through the breadcrumb
    n = renders(browser)
    browser.find_element(By.CSS_SELECTOR, "#breadcrumb a.crumb[data-index='0']").click()
    assert wait_render(browser, n) == "ready"
    assert browser.current_url == start_url and shown_value(browser) == start_value
    assert len(browser.find_elements(By.CSS_SELECTOR, "#breadcrumb a.crumb")) == 0


def test_first_round_view(server, browser):
    open_page(browser, server, SHARED)
    browser.find_element(By.ID, "first-btn").click()
    t0 = time.time()
    while not browser.find_elements(By.ID, "first-value"):
        assert time.time() - t0 < WAIT
        time.sleep(0.05)
    first = api(server, "/api/first", {"cards": 6})
    cells = browser.find_elements(By.CSS_SELECTOR, "#first-map g.first-cell")
    assert len(cells) == 36
    title = browser.find_element(By.CSS_SELECTOR, "#first-map g.first-cell[data-prize='6'][data-card='6'] title")
    assert float(title.get_attribute("textContent").rsplit(" ", 1)[1]) == first["rows"][5]["strategy"][5]



def shown_pot(driver):
    return int(driver.find_element(By.ID, "pot").get_attribute("value"))


def colour(driver, element, prop):
    """A computed colour as ``rgb(r,g,b)`` without spaces."""
    return driver.execute_script(f"return getComputedStyle(arguments[0]).{prop}", element).replace(" ", "")


def legend_keys(driver, chart):
    return [li.get_attribute("data-key")
            for li in driver.find_elements(By.CSS_SELECTOR, f"#{chart} ul.legend[data-chart='{chart}'] li")]


def swatch(driver, chart, key):
    return driver.find_element(By.CSS_SELECTOR, f"#{chart} ul.legend li[data-key='{key}'] .swatch")


def test_pot_shown_is_the_states_pot_and_no_split_is_guessed(server, browser):
    # hidden 1 and 4 with a pot of 7: revealed 6 + carried 1 (the largest card not hidden) is no history's
    # split, since the 1 was never played; 5 + 2 and 2 + 5 both are. The page shows one number, the pot.
    open_page(browser, server, SHARED)
    assert shown_pot(browser) == api(server, "/api/query", SHARED)["state"]["pot"] == 7
    position = browser.find_element(By.ID, "position")
    rows = [e.get_attribute("id") for e in position.find_elements(By.CSS_SELECTOR, ".cards")]
    assert rows == ["hand-a", "hand-b", "prizes"]  # no row of revealed prizes
    inputs = [e.get_attribute("id") for e in position.find_elements(By.TAG_NAME, "input")]
    assert inputs == ["pot", "diff"]  # no carried part to type
    assert not browser.find_elements(By.CSS_SELECTOR, "#revealed, #revealed-value, #carried")
    text = position.text.lower()
    assert "revealed" not in text and "carried" not in text
    # editing the pot edits the state's pot; an impossible one gets the CLI's message
    n = renders(browser)
    browser.find_element(By.ID, "pot-plus").click()
    assert wait_render(browser, n) == "ready"
    q = {k: v[0] for k, v in parse_qs(urlsplit(browser.current_url).query, keep_blank_values=True).items()}
    assert q["pot"] == "8"
    want = api(server, "/api/query", q)
    assert shown_pot(browser) == want["state"]["pot"] == 8 and shown_value(browser) == want["value"]
    n = renders(browser)
    pot = browser.find_element(By.ID, "pot")
    pot.clear()
    pot.send_keys("1\n")
    assert wait_render(browser, n) == "error"
    with pytest.raises(urllib.error.HTTPError) as err:
        api(server, "/api/query", {**SHARED, "pot": "1"})
    assert browser.find_element(By.ID, "error").text == json.loads(err.value.read())["error"]
    assert shown_pot(browser) == 1


def test_pot_after_a_step_is_the_successors_pot(server, browser):
    open_page(browser, server, SHARED)
    # a tie carries the pot of 7; the 4 revealed next joins it
    browser.find_element(By.CSS_SELECTOR, "#heatmap g.cell[data-a='3'][data-b='3']").click()
    browser.find_element(By.CSS_SELECTOR, "#next .card[data-card='4']").click()
    n = renders(browser)
    browser.find_element(By.ID, "step-btn").click()
    assert wait_render(browser, n) == "ready"
    q = {k: v[0] for k, v in parse_qs(urlsplit(browser.current_url).query, keep_blank_values=True).items()}
    assert shown_pot(browser) == api(server, "/api/query", q)["state"]["pot"] == 11


def test_fixed_order_round_change_sets_that_rounds_prize(live_server, browser):
    # ascending order, 3 cards left: the 4 is on the table, 5 and 6 hidden
    params = {"cards": "6", "order": "ascending", "hand_a": "4,5,6", "hand_b": "4,5,6", "pot": "4",
              "prizes": "5,6", "diff": "0"}
    open_page(browser, live_server, params)
    for hand in ("hand-a", "hand-b"):  # one more card each: the round of the 3
        n = renders(browser)
        browser.find_element(By.CSS_SELECTOR, f"#{hand} .card[data-card='3']").click()
        wait_render(browser, n)
    assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready"
    q = {k: v[0] for k, v in parse_qs(urlsplit(browser.current_url).query, keep_blank_values=True).items()}
    assert (q["hand_a"], q["prizes"], q["pot"]) == ("3,4,5,6", "4,5,6", "3")
    assert shown_pot(browser) == api(live_server, "/api/query", q)["state"]["pot"] == 3


def test_every_chart_has_a_legend(server, browser):
    open_page(browser, server, SHARED)
    assert legend_keys(browser, "bars-a") == ["a", "selected"]
    assert legend_keys(browser, "bars-b") == ["b", "selected"]
    # the legend's colour is the bars' colour, and the two players' colours differ
    for side in ("a", "b"):
        bar = browser.find_element(By.CSS_SELECTOR, f"#bars-{side} rect.bar-{side}")
        assert colour(browser, swatch(browser, f"bars-{side}", side), "backgroundColor") == colour(browser, bar, "fill")
        text = browser.find_element(By.CSS_SELECTOR, f"#bars-{side} ul.legend li[data-key='{side}']").text
        assert text.startswith(f"{side.upper()}: a bar's height is the probability")
    assert colour(browser, swatch(browser, "bars-a", "a"), "backgroundColor") != \
        colour(browser, swatch(browser, "bars-b", "b"), "backgroundColor")
    # the heatmap: its extreme cells have the legend's end colours, labelled with their values
    assert legend_keys(browser, "heatmap") == ["a", "zero", "b", "rows", "cols", "support", "chosen"]
    stage = api(server, "/api/position", SHARED)["stage"]
    values = [v for row in stage["matrix"] for v in row]
    top = max(values, key=abs)
    i, j = divmod(values.index(top), len(stage["cards_b"]))
    cell = browser.find_element(By.CSS_SELECTOR, f"#heatmap g.cell[data-a='{stage['cards_a'][i]}']"
                                                 f"[data-b='{stage['cards_b'][j]}'] rect")
    end = "a" if top > 0 else "b"
    assert colour(browser, swatch(browser, "heatmap", end), "backgroundColor") == cell.get_attribute("fill").replace(" ", "")
    label = browser.find_element(By.CSS_SELECTOR, f"#heatmap ul.legend li[data-key='{end}']").text
    assert abs(float(label.split(":")[0]) - top) < 0.01
    # the first-round map
    browser.find_element(By.ID, "first-btn").click()
    t0 = time.time()
    while not browser.find_elements(By.ID, "first-value"):
        assert time.time() - t0 < WAIT
        time.sleep(0.05)
    assert legend_keys(browser, "first-map") == ["shade", "p0", "p50", "p1", "value"]
    first = api(server, "/api/first", {"cards": 6})
    p, c = next((p, c + 1) for p, row in enumerate(first["rows"], 1) for c, v in enumerate(row["strategy"]) if v == 1.0)
    sure = browser.find_element(By.CSS_SELECTOR, f"#first-map g.first-cell[data-prize='{p}'][data-card='{c}'] rect")
    assert colour(browser, swatch(browser, "first-map", "p1"), "backgroundColor") == sure.get_attribute("fill").replace(" ", "")
    # every chart on the page has one
    for box in browser.find_elements(By.CSS_SELECTOR, "svg[role=img]"):
        parent = box.find_element(By.XPATH, "..")
        assert parent.find_elements(By.CSS_SELECTOR, ":scope > ul.legend"), parent.get_attribute("id")


def test_other_rules_than_the_stored_ones_show_the_cli_message(server, browser):
    params = {**SHARED, "tie": "discard", "hand_a": "2,3,5", "pot": "6"}
    browser.get(f"{server}/?{urlencode(params)}")
    assert wait_render(browser, 0) == "error"
    with pytest.raises(urllib.error.HTTPError) as err:
        api(server, "/api/query", params)
    assert err.value.code == 400
    assert browser.find_element(By.ID, "error").text == json.loads(err.value.read())["error"]
    assert "holds a solution for n=6 tie=carry" in browser.find_element(By.ID, "error").text


def test_live_sub_game_solve_shows_its_progress(live_server, browser):
    # the opening of the 9-card game: its sub-game (8 levels, about 4 million stage games) takes seconds
    full = ",".join(map(str, range(1, 10)))
    params = {"cards": "9", "hand_a": full, "hand_b": full, "pot": "5", "prizes": "1,2,3,4,6,7,8,9", "diff": "0"}
    browser.get(f"{live_server}/?{urlencode(params)}")
    texts = set()
    t0 = time.time()
    while browser.find_element(By.TAG_NAME, "body").get_attribute("data-state") not in ("ready", "error"):
        assert time.time() - t0 < 10 * WAIT
        busy = browser.find_element(By.ID, "busy")
        if busy.is_displayed():
            texts.add(browser.find_element(By.ID, "busy-text").text)
        time.sleep(0.02)
    assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready"
    progress = [t for t in texts if t.startswith("solving the sub-game below this position (9 cards): level")]
    assert progress, texts  # the page showed the server's progress while it solved
    assert not browser.find_element(By.ID, "busy").is_displayed()
    assert shown_value(browser) == api(live_server, "/api/query", params)["value"]


@pytest.fixture(scope="module")
def variant_server(binaries):
    """No stored solution, two-card bids by default: the page asks for the variants."""
    yield from serve(Explorer(rules=Rules(6, bid_cards=2)))


TWO_CARD = {"cards": "6", "bid_cards": "2", "hand_a": "1,2,4,6", "hand_b": "2,3,5,6", "pot": "3",
            "prizes": "1,2,5,6", "diff": "1"}


def test_two_card_position_draws_its_distribution_over_pairs(variant_server, browser):
    open_page(browser, variant_server, TWO_CARD)
    want = api(variant_server, "/api/query", TWO_CARD)
    assert want["rules"]["bid_cards"] == 2
    assert shown_value(browser) == want["value"]
    for side in ("a", "b"):
        bars = browser.find_elements(By.CSS_SELECTOR, f"#bars-{side} g.bar")
        # one bar per pair of the hand (C(4,2) = 6), labelled as the API keys them
        assert [g.get_attribute("data-card") for g in bars] == list(want[f"strategy_{side}"])
        assert len(bars) == 6 and all("+" in g.get_attribute("data-card") for g in bars)
        for g in bars:
            p = want[f"strategy_{side}"][g.get_attribute("data-card")]
            height = float(g.find_element(By.CSS_SELECTOR, "rect").get_attribute("height"))
            assert height == pytest.approx(max(p * 120, 1 if p > 0 else 0), abs=1e-6)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#heatmap g.cell")) == 36
    assert browser.find_element(By.ID, "step").is_displayed() is False
    assert "pair of cards" in browser.find_element(By.ID, "variant-note").text


def test_open_prizes_page_shows_the_row(variant_server, browser):
    params = {"cards": "5", "open_prizes": "2", "bid_cards": "1", "hand_a": "2,4,5", "hand_b": "1,3,5", "pot": "0",
              "row": "2,5", "prizes": "4", "diff": "3"}
    open_page(browser, variant_server, params)
    assert held(browser, "row") == [2, 5] and held(browser, "prizes") == [4]
    assert browser.find_element(By.ID, "row-line").is_displayed()
    assert shown_value(browser) == api(variant_server, "/api/query", params)["value"]
    # clicking a row card asks for the row without it (one prize in the row is a state too)
    n = renders(browser)
    browser.find_element(By.CSS_SELECTOR, "#row .card[data-card='2']").click()
    wait_render(browser, n)
    q = {k: v[0] for k, v in parse_qs(urlsplit(browser.current_url).query, keep_blank_values=True).items()}
    assert q["row"] == "5"


@pytest.fixture(scope="module")
def response_server(binaries, tmp_path_factory):
    """n = 4 with the best response to ``highest`` beside the equilibrium (``gops explore --response``)."""
    from gops_solver import exploit
    from gops_solver.analysis.strategies import make_strategy
    path = tmp_path_factory.mktemp("resp") / "r.gops"
    exploit(Rules(4), "highest", p=1.0).save(path)
    yield from serve(Explorer(rules=Rules(4), response=make_strategy(str(path))))


def test_response_bars_beside_the_equilibrium(response_server, browser):
    params = {"cards": "4", "tie": "carry", "objective": "points", "order": "random", "hand_a": "1,3",
              "hand_b": "1,2", "pot": "4", "prizes": "1", "diff": "1"}
    open_page(browser, response_server, params)
    want = api(response_server, "/api/position", params)["response"]
    assert browser.find_element(By.ID, "response-fig").is_displayed()
    assert "highest" in browser.find_element(By.ID, "response-title").text
    bars = browser.find_elements(By.CSS_SELECTOR, "#bars-r g.bar")
    assert [g.get_attribute("data-card") for g in bars] == list(want["bids"]) == ["1", "3"]
    for g in bars:
        height = float(g.find_element(By.CSS_SELECTOR, "rect").get_attribute("height"))
        p = want["bids"][g.get_attribute("data-card")]
        assert height == pytest.approx(max(p * 120, 1 if p > 0 else 0), abs=1e-6)
    assert browser.find_elements(By.CSS_SELECTOR, "#bars-r .legend li")
    # under other rules the figure says why it is empty
    open_page(browser, response_server, {**params, "tie": "discard"})
    assert "computed for n=4 tie=carry" in browser.find_element(By.ID, "response-note").text
    assert not browser.find_elements(By.CSS_SELECTOR, "#bars-r g.bar")


@pytest.fixture(scope="module")
def model_server(binaries):
    """``gops explore --cards 4 --tie discard --model match --p 0.5``: the response is computed at start."""
    from gops_solver.cli._explore import _model_response
    rules = Rules(4, "discard")
    yield from serve(Explorer(rules=rules, response=_model_response(rules, "match", 0.5, None)))


def test_a_response_computed_from_a_model_is_drawn(model_server, browser):
    params = {"cards": "4", "tie": "discard", "objective": "points", "order": "random", "hand_a": "1,3",
              "hand_b": "1,2", "pot": "4", "prizes": "1", "diff": "1"}
    open_page(browser, model_server, params)
    want = api(model_server, "/api/position", params)["response"]
    assert want["model"] == "match" and want["p"] == 0.5 and want["note"] is None
    title = browser.find_element(By.ID, "response-title").text
    assert "match" in title and "P = 0.5" in title
    bars = browser.find_elements(By.CSS_SELECTOR, "#bars-r g.bar")
    assert [g.get_attribute("data-card") for g in bars] == list(want["bids"]) == ["1", "3"]
    assert not browser.find_element(By.ID, "error").text
    # a step into a successor keeps the response beside the equilibrium
    open_page(browser, model_server, {**params, "hand_a": "1,2,3,4", "hand_b": "1,2,3,4", "pot": "2",
                                      "prizes": "1,3,4", "diff": "0"})
    assert len(browser.find_elements(By.CSS_SELECTOR, "#bars-r g.bar")) == 4
