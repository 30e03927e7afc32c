"""Page-complexity strata and the critical-difference diagram on hand-written run folders."""

import json

import numpy as np
import pandas as pd
import pytest

from boilerbench.reports.figures import MissingRuns, _cliques, critical_difference
from boilerbench.reports.strata import complexity, strata_scores, table_strata


def _write(folder, extractor, dataset, pages):
    folder.mkdir(parents=True)
    pages.to_csv(folder / "pages.csv", index=False)
    summary = {"extractor": extractor, "dataset": dataset, "n_pages": len(pages)}
    (folder / "summary.json").write_text(json.dumps(summary))
    return {"run_dir": str(folder), "extractor": extractor, "dataset": dataset, "token.f1": pages["token_f1"].mean()}


def _pages(n, gold, page, f1):
    ids = [str(i) for i in range(n)]
    return pd.DataFrame({"page_id": ids, "n_gold_tokens": gold, "n_page_tokens": page, "token_f1": f1, "error": ""})


def test_complexity_is_one_minus_the_main_content_share():
    pages = _pages(4, [50, 100, 30, 10], [100, 100, 20, 0], 1.0)
    # 1 - 50/100; all content; gold longer than the page (clipped): 0; no text: unknown
    assert complexity(pages).tolist()[:3] == [0.5, 0.0, 0.0] and np.isnan(complexity(pages)[3])


@pytest.fixture
def runs(tmp_path):
    # 8 pages per dataset with complexities 0.05 .. 0.95; "simple" is right on simple pages only,
    # "steady" scores 0.6 everywhere
    rows = []
    for dataset, offset in (("d1", 0.0), ("d2", 0.05)):
        c = np.linspace(0.05, 0.85, 8) + offset
        gold, page = np.round((1 - c) * 1000), np.full(8, 1000)
        rows.append(_write(tmp_path / f"s_{dataset}", "simple", dataset, _pages(8, gold, page, 1 - c)))
        rows.append(_write(tmp_path / f"t_{dataset}", "steady", dataset, _pages(8, gold, page, 0.6)))
        rows.append(_write(tmp_path / f"w_{dataset}", "weak", dataset, _pages(8, gold, page, 0.4)))
    rows.append(_write(tmp_path / "only_d1", "partial", "d1", _pages(8, gold, page, 0.5)))
    return pd.DataFrame(rows)


def test_quartiles_pool_the_datasets_and_score_each_extractor_on_the_same_pages(runs):
    strata = strata_scores(runs)
    assert strata.left_out == ["partial"] and strata.datasets == ["d1", "d2"]
    scores = strata.scores.set_index(["extractor", "stratum"])
    # 16 pages, 4 per quartile; "simple" scores 1 - c, so its mean per quartile is 1 - mean c
    all_c = np.sort(np.concatenate([np.linspace(0.05, 0.85, 8), np.linspace(0.1, 0.9, 8)]))
    for q, part in zip(("Q1", "Q2", "Q3", "Q4"), all_c.reshape(4, 4), strict=True):
        assert scores.loc[("simple", q), "pages"] == 4
        assert scores.loc[("simple", q), "value"] == pytest.approx(1 - part.mean(), abs=1e-3)
        assert scores.loc[("steady", q), "value"] == pytest.approx(0.6)
    assert scores.loc[("simple", "Q1"), "best"] and not scores.loc[("steady", "Q1"), "best"]
    assert scores.loc[("steady", "Q4"), "best"]
    table = table_strata(runs)
    # best mean over the strata first: steady 0.6, simple 1 - 0.475, weak 0.4
    assert list(table.frame["extractor"]) == ["steady", "simple", "weak"]
    assert table.frame.columns[1].startswith("Q1 c 0-") and "(n=4)" in table.frame.columns[1]
    assert "Left out (no run on every dataset): partial" in table.note


def test_critical_difference_diagram(runs):
    fig = critical_difference(runs)
    title = fig.axes[0].get_title()
    assert "over 2 datasets" in title and "partial" in title  # left out: no run on d2
    # ranks on both datasets: steady 1, simple 2, weak 3; labels carry the average rank
    labels = [t.get_text() for t in fig.axes[0].texts]
    assert "steady (1.00)" in labels and "simple (2.00)" in labels and "(3.00) weak" in labels
    with pytest.raises(MissingRuns):
        critical_difference(runs[runs["dataset"] == "d1"])


def test_cliques_join_methods_within_the_critical_difference():
    # ranks 1, 1.5, 3, 3.2 with CD 1: {1, 1.5} and {3, 3.2}
    assert _cliques(np.array([1.0, 1.5, 3.0, 3.2]), 1.0) == [(0, 1), (2, 3)]
    assert _cliques(np.array([1.0, 2.5, 4.0]), 1.0) == []


def test_page_types_are_strata_where_a_dataset_has_them(runs):
    for run_dir in runs.loc[runs["dataset"] == "d1", "run_dir"]:
        pages = pd.read_csv(f"{run_dir}/pages.csv", keep_default_na=False)
        pages.assign(page_type=["article"] * 6 + ["forum"] * 2).to_csv(f"{run_dir}/pages.csv", index=False)
    scores = strata_scores(runs).scores.set_index(["extractor", "stratum"])
    assert sorted(s for s in scores.index.get_level_values(1).unique() if s.startswith("type:")) == [
        "type: article",
        "type: forum",
    ]  # d2 has no types: no stratum for its pages
    assert scores.loc[("simple", "type: forum"), "pages"] == 2
    # the forum pages are d1's two most complex: c = 0.7429 and 0.85
    assert scores.loc[("simple", "type: forum"), "value"] == pytest.approx(1 - (0.05 + 0.8 * 6.5 / 7), abs=1e-3)
