"""``python -m boilerbench.reports compare`` and ``... inspect`` on runs the runner made on a small
plaintext dataset (one page is over the size limit: a per-page error), and on hand-written run
files; the viewer is also opened in headless Chromium (``-m browser``)."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import ARTICLE, PROJECT, TWO_PAGES, write_pairs
from hydra import compose, initialize_config_dir
from lxml import html as lxml_html

from boilerbench.configs import CONF_DIR
from boilerbench.experiments import run
from boilerbench.experiments.results import Run
from boilerbench.render import FLAGS
from boilerbench.reports.compare import compare_runs

PAGES = {
    **TWO_PAGES,
    "c": (
        "<body><p>Alpha beta gamma.</p><div>Share this</div><p>Delta epsilon zeta eta theta.</p></body>",
        "Alpha beta gamma. Delta epsilon zeta eta theta.",
    ),
    # over max_html_chars below: recorded as an error, never extracted
    "big": ("<body><p>" + "filler text " * 100 + "</p></body>", "filler text"),
}
OUTCOMES = ("kc", "kb", "dc", "db")


def _run(tmp, name, extractor, pages):
    data = write_pairs(tmp / f"pages_{len(pages)}", pages)
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose(
            "config",
            overrides=[
                "dataset=plaintext",
                f"dataset.root={data}",
                f"paths.root_dir={tmp}",
                "progress=false",
                f"extractor={extractor}",
                "max_html_chars=500",
                "max_error_rate=1",
            ],
        )
    run(cfg, tmp / name)
    return tmp / name


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("runs")
    made = {name: _run(tmp, name, name, PAGES) for name in ("bte", "all_text")}
    made["bte_ab"] = _run(tmp, "bte_ab", "bte", {k: PAGES[k] for k in ("a", "b")})
    return made


def _reports(*args):
    return subprocess.run(
        [sys.executable, "-m", "boilerbench.reports", *map(str, args)],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(PROJECT)},
        timeout=300,
    )


def expected_outcomes(row) -> dict[str, int]:
    """Blocks of each outcome from a pages.csv row: kept and content = true positives, ..."""
    tp, pred, gold, n = (int(float(row[c])) for c in ("n_tp_blocks", "n_pred_blocks", "n_gold_blocks", "n_blocks"))
    return {"kc": tp, "kb": pred - tp, "dc": gold - tp, "db": n - pred - gold + tp}


# --- compare -------------------------------------------------------------------------------


def test_identical_runs_differ_by_zero_with_p_one(runs, tmp_path):
    copy = shutil.copytree(runs["bte"], tmp_path / "bte_again")
    table = compare_runs([str(runs["bte"]), str(copy)], None, resamples=200, permutations=500, seed=0)
    assert {"block.f1", "token.f1", "cleaneval.mean", "cleaneval.micro", "lcs_error.mean"} <= set(table["metric"])
    assert (table["difference"] == 0).all() and (table["p"] == 1.0).all()
    assert (table["ci95_lo"] == 0).all() and (table["ci95_hi"] == 0).all()


def _write_run(folder, extractor, token_f1):
    """A run folder written by hand: pages.csv with token F1 per page, and its summary."""
    folder.mkdir()
    pages = pd.DataFrame({"page_id": [f"p{i}" for i in range(len(token_f1))], "token_f1": token_f1, "error": ""})
    pages.to_csv(folder / "pages.csv", index=False)
    summary = {"extractor": extractor, "n_pages": len(pages), "metrics": {"token": {"f1": float(np.mean(token_f1))}}}
    (folder / "summary.json").write_text(json.dumps(summary))
    return folder


def test_a_planted_large_difference_has_p_below_one_percent(tmp_path):
    rng = np.random.default_rng(0)
    base = rng.uniform(0.3, 0.8, 80)
    good = _write_run(tmp_path / "good", "good", base + 0.15)
    bad = _write_run(tmp_path / "bad", "bad", base + rng.normal(0, 0.05, 80))
    done = _reports("compare", good, bad, "--permutations", "2000")
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("| token.f1"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    difference, (lo, hi), p = float(cells[3]), map(float, cells[4].strip("[]").split(",")), float(cells[5])
    assert 0.12 < difference < 0.18 and 0 < lo < difference < hi and p < 0.01


def test_runs_over_different_pages_give_one_clear_message(runs):
    done = _reports("compare", runs["bte"], runs["bte_ab"])
    assert done.returncode == 2 and done.stdout == ""
    message = done.stderr.strip()
    assert len(message.splitlines()) == 1 and message.startswith("error: ")
    assert "cover different pages" in message and "4 pages) and bte" in message
    assert "2 only in bte" in message and "(big, c)" in message and "0 only in" in message


# --- inspect -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    done = _reports("inspect", runs["bte"], "-o", out)
    assert done.returncode == 0, done.stderr
    return out


def test_index_lists_every_page_and_shows_errors_as_errors(runs, site):
    pages = Run(runs["bte"]).pages
    index = lxml_html.parse(str(site / "index.html")).getroot()
    rows = index.cssselect("#index tbody tr")
    assert sorted(r.get("data-page-id") for r in rows) == sorted(pages["page_id"])
    big = next(r for r in rows if r.get("data-page-id") == "big")
    assert "error" in big.get("class") and "PageTooLarge" in big.text_content()
    # its metric cells say "error", not a zero score
    assert [c.text for c in big.cssselect("td.num")] == ["error"] * 5
    assert pages.set_index("page_id").loc["big", "token_f1"] == 0.0  # what the run scored it
    # nothing is fetched from anywhere: no external scripts, styles or images
    for file in [site / "index.html", *sorted((site / "pages").iterdir())]:
        root = lxml_html.parse(str(file)).getroot()
        assert not root.cssselect("[src], link[href]"), file
        assert "http" not in " ".join(a.get("href", "") for a in root.cssselect("a")), file


def test_pages_colour_blocks_by_the_runs_outcomes(runs, site):
    pages = Run(runs["bte"]).pages
    for i, row in pages.iterrows():
        root = lxml_html.parse(str(site / "pages" / f"page-{i:05d}.html")).getroot()
        if row["error"]:
            assert "failed on this page: PageTooLarge" in root.text_content()
            assert not root.cssselect(".blk")
            continue
        counts = {k: len(root.cssselect(f"#blocks .blk.o-{k}")) for k in OUTCOMES}
        assert counts == expected_outcomes(row), row["page_id"]
        assert not root.cssselect(".note")  # the viewer's counts agree with the run's
    # page c: "Share this" was kept by BTE but is not content: marked as extra text
    c = list(pages["page_id"]).index("c")
    root = lxml_html.parse(str(site / "pages" / f"page-{c:05d}.html")).getroot()
    assert [m.text for m in root.cssselect("mark.extra")] == ["Share", "this"]


def test_two_runs_show_where_they_disagree(runs, tmp_path):
    done = _reports("inspect", runs["bte"], runs["all_text"], "-o", tmp_path)
    assert done.returncode == 0, done.stderr
    labels = [
        {
            json.loads(line)["page_id"]: json.loads(line).get("labels")
            for line in (runs[r] / "predictions.jsonl").read_text().splitlines()
        }
        for r in ("bte", "all_text")
    ]
    # page a: BTE keeps the article block only, all_text keeps all 4 blocks: 3 disagree
    root = lxml_html.parse(str(tmp_path / "pages" / "page-00000.html")).getroot()
    differ = sum(x != y for x, y in zip(labels[0]["a"], labels[1]["a"], strict=True))
    assert differ == 3 and len(root.cssselect(".blk.disagree")) == differ


def test_a_truncated_predictions_file_is_reported(runs, tmp_path):
    cut = shutil.copytree(runs["bte"], tmp_path / "cut")
    text = (cut / "predictions.jsonl").read_text()
    (cut / "predictions.jsonl").write_text(text[: len(text) - 20])
    done = _reports("inspect", cut, "-o", tmp_path / "site")
    assert done.returncode == 2 and "predictions.jsonl is truncated: its last line (4) has no line end" in done.stderr
    lines = text.splitlines(keepends=True)
    (cut / "predictions.jsonl").write_text("".join(lines[:-1]))  # a whole line lost
    done = _reports("inspect", cut, "-o", tmp_path / "site")
    assert done.returncode == 2 and "3 predictions for the 4 pages" in done.stderr
    assert "missing pages: c (truncated?" in done.stderr
    assert not (tmp_path / "site" / "index.html").exists()


# --- the viewer in a real browser ----------------------------------------------------------


@pytest.fixture
def browser(tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        chromium = None
    if not chromium or not driver_path:
        if os.environ.get("CI"):
            pytest.fail("CI must run the browser test: install chromium and chromium-driver (apt-get) and selenium")
        pytest.skip("headless Chromium (Debian's chromium, chromium-driver) or selenium is not installed")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (*FLAGS, f"--user-data-dir={tmp_path / 'profile'}"):  # FIASCO's flags: no network
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    yield driver
    driver.quit()


def _follow(browser, link) -> None:
    """Click a link and wait until the next page has loaded and run its script: a click returns
    before the navigation ends, so reading the page at once may read the page being left."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.expected_conditions import staleness_of
    from selenium.webdriver.support.ui import WebDriverWait

    leaving = browser.find_element(By.TAG_NAME, "html")
    link.click()
    wait = WebDriverWait(browser, 30)
    wait.until(staleness_of(leaving))
    wait.until(lambda b: b.execute_script("return document.readyState") == "complete")


@pytest.mark.browser
def test_viewer_in_headless_chromium(runs, site, browser, tmp_path):
    from selenium.webdriver.common.by import By

    pages = Run(runs["bte"]).pages
    browser.get((site / "index.html").as_uri())
    rows = browser.find_elements(By.CSS_SELECTOR, "#index tbody tr")
    assert sorted(r.get_attribute("data-page-id") for r in rows) == sorted(pages["page_id"])
    # sorted by token F1 on load, worst first: the error page leads
    assert rows[0].get_attribute("data-page-id") == "big"
    header = browser.find_elements(By.CSS_SELECTOR, "#index thead th")[1]
    header.click()  # now descending
    shown = [r.get_attribute("data-page-id") for r in browser.find_elements(By.CSS_SELECTOR, "#index tbody tr")]
    order = pages.assign(f=np.where(pages["error"] != "", -1.0, pages["token_f1"])).sort_values("f", kind="stable")
    assert shown[-1] == "big" and shown[0] in set(order.loc[order["f"] == order["f"].max(), "page_id"])
    for i, row in pages.iterrows():
        if row["error"]:
            continue
        browser.get((site / "pages" / f"page-{i:05d}.html").as_uri())
        counts = {k: len(browser.find_elements(By.CSS_SELECTOR, f"#blocks .blk.o-{k}")) for k in OUTCOMES}
        assert counts == expected_outcomes(row), row["page_id"]
        legend = {
            chip.get_attribute("data-outcome"): int(chip.get_attribute("data-count"))
            for chip in browser.find_elements(By.CSS_SELECTOR, ".legend .chip")
        }
        assert legend == expected_outcomes(row)
    shot = tmp_path / "viewer_page.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 5_000


# --- hostile page text and gold: shown as text, never run ------------------------------------

PAYLOADS = (
    "<script>window.pwned=1;document.title='PWNED'</script>",
    '<img src=x onerror="window.pwned=1">',
    '<a href="javascript:window.pwned=1">click me</a>',
    "<svg onload=window.pwned=1>",
)
#: The page's text holds the payloads (escaped in its HTML: they are text, as a forum post quoting
#: code), its gold holds them raw, its URL line is a javascript: link, its id (file name) is markup.
HOSTILE_ID = "<img src=x onerror=window.pwned=1>"
HOSTILE = {
    HOSTILE_ID: (
        "<body><p>" + " ".join(p.replace("&", "&amp;").replace("<", "&lt;") for p in PAYLOADS) + "</p></body>",
        "URL: javascript:window.pwned=1\n<p>" + " ".join(PAYLOADS),
    ),
    "plain": ("<body><p>Quiet page.</p></body>", "Quiet page."),
}


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    done = _reports("inspect", _run(tmp, "all_text", "all_text", HOSTILE), "-o", tmp / "site")
    assert done.returncode == 0, done.stderr
    return tmp / "site"


def test_hostile_text_is_written_as_text(hostile_site):
    from boilerbench.reports.inspect.site import content_security_policy

    files = [hostile_site / "index.html", *sorted((hostile_site / "pages").iterdir())]
    shown = ""
    for file in files:
        root = lxml_html.parse(str(file)).getroot()
        scripts = root.cssselect("script")
        assert len(scripts) == 1 and "pwned" not in scripts[0].text, file  # the viewer's own, only
        handlers = [(e.tag, a) for e in root.iter() if isinstance(e.tag, str) for a in e.attrib if a.startswith("on")]
        assert handlers == [] and not root.cssselect("img, svg, iframe, object, embed"), file
        assert not [a for a in root.cssselect("a") if "javascript" in a.get("href", "")], file
        policy = root.cssselect("meta[http-equiv='Content-Security-Policy']")[0].get("content")
        assert policy == content_security_policy(scripts[0].text) and "default-src 'none'" in policy
        shown += root.text_content()
    for payload in (*PAYLOADS, HOSTILE_ID, "javascript:window.pwned=1"):
        assert payload.split()[0] in shown  # the markup is there, as text


@pytest.mark.browser
def test_hostile_text_runs_no_script_in_chromium(hostile_site, browser):
    from selenium.webdriver.common.by import By

    for file in [hostile_site / "index.html", *sorted((hostile_site / "pages").iterdir())]:
        browser.get(file.as_uri())
        assert browser.execute_script("return typeof window.pwned") == "undefined", file
        assert browser.title != "PWNED"
        assert not browser.find_elements(By.CSS_SELECTOR, "img, svg, a[href^='javascript']")
    browser.get((hostile_site / "index.html").as_uri())
    link = browser.find_element(By.CSS_SELECTOR, "#index tbody a")
    assert HOSTILE_ID in {a.text for a in browser.find_elements(By.CSS_SELECTOR, "#index tbody a")}
    _follow(browser, link)  # the page the hostile id links to opens, and runs nothing either
    assert browser.execute_script("return typeof window.pwned") == "undefined"


# --- the viewer as a researcher meets it: empty gold, folds, the table's order, A and B, source --

NAV = "".join(f"<div><a>Section {i}</a></div>" for i in range(5))
VIEWER_PAGES = {
    "long": (f"<body>{NAV}<p>{ARTICLE}</p><div>Share this</div></body>", ARTICLE),
    "empty": ("<body><div><a>Home</a></div><p>Only a menu here.</p></body>", ""),
    # its source HTML holds a live script: the viewer links it as text, never as a page
    "scripted": (f"<body><script>window.pwned = 1</script><p>{ARTICLE}</p></body>", ARTICLE),
    **{k: PAGES[k] for k in ("a", "b", "c")},
}


@pytest.fixture(scope="module")
def viewer(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("viewer")
    made = {name: _run(tmp, name, "bte", VIEWER_PAGES) for name in ("bte", "bte_again")}
    one, two = tmp / "site", tmp / "site_ab"
    for out, folders in ((one, [made["bte"]]), (two, [made["bte"], made["bte_again"]])):
        done = _reports("inspect", *folders, "-o", out)
        assert done.returncode == 0, done.stderr
    return made, one, two, tmp / f"pages_{len(VIEWER_PAGES)}"


def _page(site, i):
    return lxml_html.parse(str(site / "pages" / f"page-{i:05d}.html")).getroot()


def test_pages_whose_gold_is_empty_are_flagged(viewer):
    made, site, _, _ = viewer
    ids = list(Run(made["bte"]).pages["page_id"])
    rows = lxml_html.parse(str(site / "index.html")).getroot().cssselect("#index tbody tr")
    flagged = {r.get("data-page-id") for r in rows if "empty-gold" in (r.get("class") or "")}
    assert flagged == {r.get("data-page-id") for r in rows if r.cssselect(".flag.empty-gold")} == {"empty"}
    for i, page_id in enumerate(ids):
        assert bool(_page(site, i).cssselect("p.note.empty-gold")) == (page_id == "empty"), page_id


def _runs_of_right_drops(outcomes: list[str]) -> list[list[int]]:
    runs, current = [], []
    for i, outcome in enumerate([*outcomes, "end"]):
        if outcome == "db":
            current.append(i)
            continue
        if len(current) >= 3:
            runs.append(current)
        current = []
    return runs


def test_rightly_dropped_boilerplate_folds_and_the_first_mistake_is_one_click_away(viewer):
    made, site, _, _ = viewer
    folds_seen = mistakes_seen = 0
    for i, row in Run(made["bte"]).pages.iterrows():
        root = _page(site, i)
        blocks = root.cssselect("#blocks .blk")
        outcomes = [next(c[2:] for c in b.get("class").split() if c.startswith("o-")) for b in blocks]
        assert {k: outcomes.count(k) for k in OUTCOMES} == expected_outcomes(row)
        folds = [[int(b.get("data-i")) for b in f.cssselect(".blk")] for f in root.cssselect("#blocks details.fold")]
        assert folds == _runs_of_right_drops(outcomes), row["page_id"]
        summaries = [s.text for s in root.cssselect("#blocks details.fold > summary")]
        assert summaries == [f"{len(f)} blocks of boilerplate dropped, rightly" for f in folds]
        folds_seen += len(folds)
        wrong = [k for k, o in enumerate(outcomes) if o in ("kb", "dc")]
        jump = root.cssselect("#first-mistake")[0]
        assert jump.get("href") == (f"#b{wrong[0]}" if wrong else None), row["page_id"]
        if wrong:
            assert root.cssselect(f"#b{wrong[0]}")[0].get("data-i") == str(wrong[0])
            mistakes_seen += 1
    # the five section links of "long", and the mistakes of pages a-c, are there to be shown
    assert folds_seen >= 1 and mistakes_seen >= 1


def test_previous_and_next_follow_the_order_the_index_opens_with(viewer):
    made, site, _, _ = viewer
    pages = Run(made["bte"]).pages
    key = np.where(pages["error"] != "", -1e9, pages["token_f1"].astype(float))
    order = [int(i) for i in np.argsort(key, kind="stable")]  # worst first, as the index sorts on load
    for position, i in enumerate(order):
        root = _page(site, i)
        previous, following = root.cssselect("#previous")[0], root.cssselect("#next")[0]
        assert previous.get("href") == (f"../pages/page-{order[position - 1]:05d}.html" if position else None)
        last = position + 1 == len(order)
        assert following.get("href") == (None if last else f"../pages/page-{order[position + 1]:05d}.html")


def test_the_two_runs_are_labelled_a_and_b(viewer):
    _, _, site, _ = viewer
    index = lxml_html.parse(str(site / "index.html")).getroot()
    # the same extractor twice: told apart by their folders, and named by the letters of A - B
    assert index.cssselect("h1")[0].text_content() == "A: bte (bte) vs B: bte (bte_again)"
    page = _page(site, 0)
    assert [b.text_content() for b in page.cssselect(".legend b")] == ["A: bte (bte)", "B: bte (bte_again)"]
    assert [t.get("title").split(":")[0] for t in page.cssselect("#blocks .blk")[0].cssselect(".tag")] == ["A", "B"]


def test_each_page_links_its_source_html_as_text(viewer):
    made, site, _, data = viewer
    for i, page_id in enumerate(Run(made["bte"]).pages["page_id"]):
        link = [a for a in _page(site, i).cssselect("nav a") if a.text == "source HTML"][0]
        assert link.get("href") == f"../sources/page-{i:05d}.txt"
        source = (site / "pages" / link.get("href")).resolve()
        assert source.read_text(encoding="utf-8") == "\ufeff" + (data / f"{page_id}.html").read_text()


@pytest.mark.browser
def test_viewer_navigation_in_headless_chromium(viewer, browser):
    from selenium.webdriver.common.by import By

    made, site, _, _ = viewer
    browser.get((site / "index.html").as_uri())
    browser.find_elements(By.CSS_SELECTOR, "#index thead th")[0].click()  # sort by page id
    ids = [r.get_attribute("data-page-id") for r in browser.find_elements(By.CSS_SELECTOR, "#index tbody tr")]
    assert ids == sorted(ids)
    rows = browser.find_elements(By.CSS_SELECTOR, "#index tbody tr")
    shown = [int(r.get_attribute("data-file").removesuffix(".html").rsplit("-", 1)[1]) for r in rows]
    _follow(browser, browser.find_element(By.CSS_SELECTOR, "#index tbody a"))
    # the order the reader chose travels with the link (the page numbers of the index's rows), and
    # each previous / next link passes it on: no storage whose writes may land after a page reads it
    assert browser.current_url.endswith("?order=" + ".".join(map(str, shown)))
    for expected in ids[1:]:  # next follows the order the reader chose, not the one the site was written in
        _follow(browser, browser.find_element(By.ID, "next"))
        assert browser.find_element(By.TAG_NAME, "h1").text.split()[1] == expected
    assert not browser.find_element(By.ID, "next").is_displayed()
    _follow(browser, browser.find_element(By.ID, "previous"))
    assert browser.find_element(By.TAG_NAME, "h1").text.split()[1] == ids[-2]
    # a fold hides its blocks until opened; the jump lands on a block that is a mistake
    browser.get((site / "pages" / f"page-{list(Run(made['bte']).pages['page_id']).index('long'):05d}.html").as_uri())
    folds = browser.find_elements(By.CSS_SELECTOR, "details.fold")
    hidden = folds[0].find_elements(By.CSS_SELECTOR, ".blk")
    assert len(hidden) >= 3 and not any(b.is_displayed() for b in hidden)
    folds[0].find_element(By.TAG_NAME, "summary").click()
    assert all(b.is_displayed() for b in hidden)
    c = list(Run(made["bte"]).pages["page_id"]).index("c")  # BTE keeps its "Share this"
    browser.get((site / "pages" / f"page-{c:05d}.html").as_uri())
    jump = browser.find_element(By.ID, "first-mistake")
    target = jump.get_attribute("href").rsplit("#", 1)[1]
    jump.click()
    assert browser.execute_script("return location.hash") == f"#{target}"
    assert {"o-kb", "o-dc"} & set(browser.find_element(By.ID, target).get_attribute("class").split())
    # the source HTML opens as text: the page's script is shown, not run
    scripted = list(Run(made["bte"]).pages["page_id"]).index("scripted")
    browser.get((site / "pages" / f"page-{scripted:05d}.html").as_uri())
    _follow(browser, browser.find_element(By.LINK_TEXT, "source HTML"))
    assert "<script>window.pwned = 1</script>" in browser.find_element(By.TAG_NAME, "body").text
    assert browser.execute_script("return typeof window.pwned") == "undefined"
