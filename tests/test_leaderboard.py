"""The leaderboard page in headless Chromium: built by MkDocs with the project's config and hooks
from the real results store (only the leaderboard and a home page, so that the build takes
seconds), with a
stand-in viewer for one headline run. The table renders the store's figures, sorting by a column
header works both ways, and every link of the page resolves to a file of the built site."""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from conftest import PROJECT
from test_compare_inspect import browser  # noqa: F401  (the headless-Chromium fixture)

from boilerbench.reports.site.leaderboard import VIEWER_REPORTS, leaderboard_runs, viewer_slug
from boilerbench.reports.site.store import Store


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, str]:
    """The built site and the slug of the headline run given a viewer."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    tmp = tmp_path_factory.mktemp("leaderboard")
    docs = tmp / "docs"
    docs.mkdir()
    shutil.copy(PROJECT / "docs/leaderboard.md", docs)
    (docs / "index.md").write_text("# boilerbench\n\nThe [leaderboard](leaderboard.md).\n")
    shutil.copytree(PROJECT / "docs/assets", docs / "assets")
    runs = leaderboard_runs(Store(PROJECT / "reports/results").runs)
    headline = runs[runs["report"].isin(VIEWER_REPORTS) & (runs["dataset"] == "wcxb")]
    slug = viewer_slug(headline["run_dir"].iloc[-1])
    viewer = tmp / "viewers" / slug
    viewer.mkdir(parents=True)
    (viewer / "index.html").write_text("<!doctype html><title>viewer</title><p>pages</p>")
    config = load_config(
        str(PROJECT / "mkdocs.yml"),
        docs_dir=str(docs),
        site_dir=str(tmp / "site"),
        nav=[{"Home": "index.md"}, {"Leaderboard": "leaderboard.md"}],
        plugins=["search"],
        strict=True,
    )
    config["extra"]["viewers"] = str(tmp / "viewers")
    build(config)
    return tmp / "site", slug


def _cells(driver, key: str) -> list[str]:
    from selenium.webdriver.common.by import By

    return [td.text for td in driver.find_elements(By.CSS_SELECTOR, f'#lb-table tbody td[data-key="{key}"]')]


def _number(text: str) -> float:
    return float(text.split(" ")[0])


@pytest.mark.browser
def test_leaderboard_renders_sorts_and_links(built, browser):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    site, slug = built
    page = site / "leaderboard.html"
    browser.get(page.as_uri() + "#dataset=wcxb")
    assert Select(browser.find_element(By.ID, "lb-dataset")).first_selected_option.text == "wcxb"

    # the table renders the store's runs on WCXB, token F1 best first
    store = Store(PROJECT / "reports/results")
    runs = leaderboard_runs(store.runs)
    wcxb = runs[(runs["dataset"] == "wcxb") & runs["token.f1"].notna()]
    extractors = _cells(browser, "extractor")
    assert sorted(extractors) == sorted(wcxb["extractor"])
    tokens = [_number(t) for t in _cells(browser, "token")]
    assert tokens == sorted(tokens, reverse=True)
    assert tokens[0] == round(wcxb["token.f1"].astype(float).max(), 3)

    # sorting: by ms/page, descending on the first click, ascending on the second
    header = browser.find_element(By.CSS_SELECTOR, '#lb-table thead th[data-key="ms"]')
    header.click()
    ms = [_number(t) for t in _cells(browser, "ms")]
    assert ms == sorted(ms, reverse=True) and ms[0] > ms[-1]
    sorted_by = browser.find_element(By.CSS_SELECTOR, '#lb-table thead th[data-key="ms"]')
    assert sorted_by.get_attribute("aria-sort") == "descending"
    browser.find_element(By.CSS_SELECTOR, '#lb-table thead th[data-key="ms"]').click()
    assert [_number(t) for t in _cells(browser, "ms")] == sorted(ms)
    browser.find_element(By.CSS_SELECTOR, '#lb-table thead th[data-key="extractor"]').click()
    assert _cells(browser, "extractor") == sorted(extractors)

    # a page-type group of the same dataset
    Select(browser.find_element(By.ID, "lb-group")).select_by_visible_text("page type: forum")
    forum = [_number(t) for t in _cells(browser, "token")]
    assert forum and len(forum) == wcxb["type.forum.token.f1"].notna().sum()
    assert _cells(browser, "extractor") == sorted(_cells(browser, "extractor"))  # the sort order stays

    # every link resolves to a file of the built site, the viewer's among them
    links = [a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, "a[href]")]
    local = [unquote(urlparse(h).path) for h in links if h.startswith("file:")]
    assert any(f"viewer/{slug}/index.html" in p for p in local)
    for path in local:  # a file, not a folder: opened from disk, a folder shows a listing
        assert Path(path).is_file(), path
