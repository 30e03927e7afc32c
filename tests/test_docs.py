"""The README and the documentation pages are built from the results store: the README's table is
the store's, every figure on a page is a cell of the store, and a figure typed by hand (planted
pages below) is refused."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from conftest import PROJECT

from boilerbench.reports.site.__main__ import check, readme
from boilerbench.reports.site.check import docstring_problems, problems
from boilerbench.reports.site.leaderboard import rows, viewer_slug
from boilerbench.reports.site.render import expand, generated_extractor_page, unlisted_names
from boilerbench.reports.site.store import Store, figure

README = PROJECT / "README.md"
DOCS = PROJECT / "docs"


def _pages() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


# --- the real README and pages against the real store -------------------------------------


def test_readme_is_small_and_shows_the_stores_headline_table():
    text = README.read_text(encoding="utf-8")
    assert len(text.encode()) <= 10 * 1024
    assert "<!-- store: table_headline.md -->" in text
    assert problems(text, Store(PROJECT / "reports/results")) == []
    for command in ("make run", "make test"):
        assert command in text


def test_the_readmes_links_resolve():
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8")):
        assert (PROJECT / target).is_file(), target


def test_every_page_shows_only_figures_the_store_holds():
    assert check(Store(PROJECT / "reports/results"), _pages()) == []


def test_no_development_history_in_the_pages():
    history = re.compile(r"\bstops? \d+", re.I)
    store = Store(PROJECT / "reports/results")
    for page in _pages():
        built = expand(page.read_text(encoding="utf-8"), store)
        assert not history.search(built), page


def test_every_dataset_config_has_its_page_and_every_extractor_page_is_in_the_navigation():
    conf = PROJECT / "boilerbench/conf"
    nav = (PROJECT / "mkdocs.yml").read_text()
    for config in (conf / "dataset").glob("*.yaml"):
        assert (DOCS / "datasets" / f"{config.stem}.md").is_file(), config
        assert f"datasets/{config.stem}.md" in nav, config
    for page in (DOCS / "extractors").glob("*.md"):
        assert f"extractors/{page.name}" in nav, page


def test_an_extractor_without_a_page_gets_one_generated_and_listed():
    names = unlisted_names(DOCS / "extractors")
    assert "bte" not in names  # it has its own page
    page = generated_extractor_page("bte")
    assert page.startswith("# `bte` (`extractor=bte`)")
    assert "::: boilerbench.extractors.bte\n" in page and "::: boilerbench.extractors.bte.BTE\n" in page
    assert "<!-- settings: extractor/bte -->" in page and "<!-- figures: bte -->" in page
    index = "| [`bte`](bte.md) | BTE |\n\n<!-- unlisted-extractors -->\n"
    listed = expand(index, Store(PROJECT / "reports/results"))
    assert "- [`cetd`](cetd.md): `boilerbench.extractors.cetd.CETD`" in listed
    assert "[`bte`](bte.md): " not in listed  # linked by the page already


# --- planted pages against a small store -----------------------------------------------------


@pytest.fixture
def store(tmp_path) -> Store:
    root = tmp_path / "results"
    root.mkdir()
    (root / "table_x.md").write_text("| extractor | F1 |\n|---|---|\n| bte | 0.812 |\n")
    pd.DataFrame(
        {
            "run_dir": ["multirun/table_headline/0_stack_wcxb", "multirun/t/1_bte_wcxb", "multirun/t/2_bte_wcxb"],
            "report": ["table_headline", "table_datasets", "table_datasets"],
            "extractor": ["stack", "bte", "bte"],
            "dataset": ["wcxb", "wcxb", "wcxb"],
            "split": ["wcxb"] * 3,
            "protocol": ["cross", "test", "test"],
            "trained_on": ["mix(a,b)/balanced", "", ""],
            "params": ["{}"] * 3,
            "finished_at": ["2026-01-03", "2026-01-01", "2026-01-02"],
            "n_pages": [271, 271, 271],
            "ms_per_page": [40.123, 8.5, 9.25],
            "token.f1": [0.8461, 0.7012, 0.7123],
            "token.f1_ci95": ["[0.8301, 0.8612]", "", "[0.6904, 0.7301]"],
            "word.f1": [0.855, None, 0.7201],
            "type.article.n_pages": [146, None, 146],
            "type.article.token.f1": [0.944, None, 0.9012],
        }
    ).to_csv(root / "runs.csv", index=False)
    return Store(root)


def test_a_hand_typed_figure_is_refused_even_when_the_store_holds_it(store):
    # 0.812 is in table_x.md: typed by hand it is refused all the same, in prose and in a table
    for page in ("BTE reaches 0.812 on WCXB.", "| bte | 0.812 |", "a gain of -0.004", "F1 .85"):
        assert len(problems(page, store)) == 1, page


def test_code_versions_and_licences_are_not_figures(store):
    page = "Install torch 2.13.0 (CC-BY-4.0, Apache-2.0).\n\n```yaml\nthreshold: 0.5\n```\n"
    assert problems(page, store) == []


def test_a_figure_with_its_store_address_is_checked_against_the_cell(store):
    right = figure("runs.csv", 2, "token.f1", "0.712")
    assert problems(f"BTE: {right}", store) == []
    wrong = figure("runs.csv", 2, "token.f1", "0.713")
    assert "the store holds '0.712'" in problems(f"BTE: {wrong}", store)[0]
    for missing in (figure("runs.csv", 9, "token.f1", "0.712"), figure("runs.csv", 2, "nope", "0.712")):
        assert "has no cell" in problems(missing, store)[0]
    bound = figure("runs.csv", 2, "token.f1_ci95", "0.730", item=1)
    assert problems(bound, store) == []
    assert problems(figure("published", "bte/cleaneval", "block.f1", "0.8"), store) == []
    assert len(problems(figure("published", "bte/cleaneval", "block.f1", "0.9"), store)) == 1


def test_a_measurement_in_a_rendered_docstring_is_refused():
    doc = '<div class="doc doc-contents first"><p>{}</p><pre><code>score = 0.8123</code></pre></div>'
    assert docstring_problems(doc.format("Chosen on the development pages (block F1 0.838).")) != []
    # settings, the literature's figures and section numbers are not measurements; code is code
    assert docstring_problems(doc.format("Threshold 0.2 (sec. 4.3), published 74.2.")) == []


def test_a_store_block_must_be_the_stores_file(store):
    good = expand("<!-- store: table_x.md -->\n<!-- /store -->\n", store)
    assert "| bte | 0.812 |" in good and problems(good, store) == []
    edited = good.replace("0.812", "0.821")
    assert problems(edited, store) == ["the block of table_x.md differs from the store's file: rebuild the page"]
    assert "no missing.md" in problems("<!-- store: missing.md -->\nx\n<!-- /store -->", store)[0]


def test_the_readme_generator_rewrites_a_stale_table(store, tmp_path):
    page = tmp_path / "README.md"
    page.write_text("# x\n\n<!-- store: table_x.md -->\n| bte | 0.700 |\n<!-- /store -->\n\nmore\n")
    assert problems(page.read_text(), store)  # stale: the test of the real README would fail
    assert readme(store, page) is True
    assert (
        page.read_text()
        == "# x\n\n<!-- store: table_x.md -->\n" + store.text("table_x.md") + "<!-- /store -->\n\nmore\n"
    )
    assert problems(page.read_text(), store) == [] and readme(store, page) is False


def test_directives_expand_to_checked_figures(store):
    page = expand("<!-- figures: bte -->\n\n<!-- settings: extractor/bte -->\n", store)
    assert problems(page, store) == []
    # the latest bte run (row 2), with its interval; the published block F1 beside our missing one
    assert figure("runs.csv", 2, "token.f1", "0.712") in page
    assert figure("runs.csv", 2, "token.f1_ci95", "0.690", item=0) in page
    assert "| cleaneval | `block.f1` | " + figure("published", "bte/cleaneval", "block.f1", "0.8") in page
    assert "not in the store" in page
    assert "_target_: boilerbench.extractors.bte.BTE" in page


def test_a_published_figure_sits_beside_our_run_on_the_papers_protocol_per_split(store):
    runs = pd.read_csv(store.root / "runs.csv")
    paper = pd.DataFrame(
        {
            "run_dir": ["multirun/c/0_bte", "multirun/c/1_bte", "multirun/c/2_bte"],
            "report": ["table_cleaneval"] * 3,
            "extractor": ["bte"] * 3,
            "dataset": ["cleaneval"] * 3,
            "split": ["web2text", "cleaneval", "web2text"],
            "finished_at": ["2026-01-01", "2026-01-01", "2026-01-02"],
            "block.f1": [0.791, 0.8104, 0.7932],
        }
    )
    pd.concat([runs, paper], ignore_index=True).to_csv(store.root / "runs.csv", index=False)
    store = Store(store.root)
    page = expand("<!-- figures: bte -->\n", store)
    assert problems(page, store) == []
    published = figure("published", "bte/cleaneval", "block.f1", "0.8")
    # one line per split, the later of the two web2text-split runs (row 5), none "not in the store"
    assert (
        f"| cleaneval (cleaneval split) | `block.f1` | {published} | {figure('runs.csv', 4, 'block.f1', '0.810')} |"
        in page
    )
    assert (
        f"| cleaneval (web2text split) | `block.f1` | {published} | {figure('runs.csv', 5, 'block.f1', '0.793')} |"
        in page
    )
    assert figure("runs.csv", 3, "block.f1", "0.791") not in page
    assert page.index("(cleaneval split)") < page.index("(web2text split)")


def test_every_store_table_is_listed_headline_first(store):
    (store.root / "table_headline.md").write_text("### headline\n\n| a |\n|---|\n| 0.5 |\n")
    page = expand("<!-- tables-list -->", store)
    assert page.index("<!-- store: table_headline.md -->") < page.index("<!-- store: table_x.md -->")
    assert problems(page, store) == []


def test_leaderboard_rows(store):
    got = rows(store, viewers={viewer_slug("multirun/table_headline/0_stack_wcxb")})
    by = {(r["extractor"], r["group"]): r for r in got}
    assert set(by) == {
        ("stack", "all pages"),
        ("stack", "page type: article"),
        ("bte", "all pages"),
        ("bte", "page type: article"),
    }
    bte = by[("bte", "all pages")]  # the later of the two bte runs
    assert (bte["token"], bte["token_lo"], bte["token_hi"], bte["word"], bte["ms"]) == (
        0.7123,
        0.6904,
        0.7301,
        0.7201,
        9.25,
    )
    assert bte["viewer"] is None  # not a headline run
    stack = by[("stack", "page type: article")]
    assert (stack["token"], stack["pages"], stack["trained_on"], stack["ms"]) == (
        0.944,
        146,
        "mix(a,b)/balanced",
        40.123,
    )
    assert stack["viewer"] == f"viewer/{viewer_slug('multirun/table_headline/0_stack_wcxb')}/index.html"
    assert viewer_slug("multirun/table_headline/0_stack_wcxb").startswith("table_headline-0_stack_wcxb-")
    assert viewer_slug("/elsewhere/multirun/table_headline/0_stack_wcxb") != viewer_slug(
        "multirun/table_headline/0_stack_wcxb"
    )
    assert rows(store, viewers=set())[0]["viewer"] is None  # no viewer built, no link
