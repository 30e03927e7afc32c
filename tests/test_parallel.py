"""n_workers > 1: the same results as one process, in page order, and no page lost when a
worker process dies."""

import os

import pytest
from registry import make_extractor

from boilerbench.datasets.page import Page
from boilerbench.experiments.parallel import evaluate_pages
from boilerbench.extractors.base import Extraction

ARTICLE = "The river rose by two metres overnight and the town closed the lower bridge until Friday."
PAGES = [
    Page(
        f"p{i}",
        f"<body><div><a href='/'>Home</a></div><p>{ARTICLE} Day {i}.</p>{'<p>More words here.</p>' * (i % 3)}</body>",
        f"{ARTICLE} Day {i}.",
    )
    for i in range(12)
]


def rows(results):
    return [{k: v for k, v in r.row.items() if k != "extract_ms"} for r in results]


@pytest.mark.parametrize("name", ["bte", "all_text"])
def test_two_workers_give_the_results_of_one_in_page_order(name):
    extractor = make_extractor(name).fit([], None)
    serial = evaluate_pages(extractor, PAGES, 10**6, n_workers=1)
    parallel = evaluate_pages(extractor, PAGES, 10**6, n_workers=2)
    assert [r.row["page_id"] for r in parallel] == [p.id for p in PAGES]
    assert rows(parallel) == rows(serial)
    assert [r.text for r in parallel] == [r.text for r in serial]


class DiesOnPage:
    """Kills its worker process on one page (a segfault in a C parser, say)."""

    def __init__(self, fatal: str) -> None:
        self.fatal = fatal

    def fit(self, train, validation=None):
        return self

    def extract(self, page):
        if page.id == self.fatal:
            os._exit(1)
        return Extraction(page.gold_text)


def test_a_dying_worker_loses_no_page():
    calls = []
    results = evaluate_pages(DiesOnPage("p5"), PAGES, 10**6, n_workers=2, on_result=lambda: calls.append(1))
    assert [r.row["page_id"] for r in results] == [p.id for p in PAGES]
    assert len(calls) == len(PAGES)
    errors = {r.row["page_id"]: r.row["error"] for r in results if r.row["error"]}
    assert list(errors) == ["p5"] and errors["p5"].startswith("WorkerCrashed: the worker process died twice")
    assert all(r.row["token_f1"] == 1.0 for r in results if r.row["page_id"] != "p5")
