"""The cross-dataset report artefacts on hand-made run folders: table_datasets (markdown, LaTeX,
CSV), its token-F1 matrix, table_generalization with in-domain marks and out-of-domain means, and
the two figures."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from boilerbench.reports.build import build_all
from boilerbench.reports.datasets import training_source


def _summary(report, extractor, dataset, token_f1, trained_on=None, cv=False, types=None) -> dict:
    summary = {
        "extractor": extractor,
        "dataset": dataset,
        "split": "x",
        "n_pages": 10,
        "n_errors": 1,
        "metrics": {
            "token": {"f1": token_f1, "precision": token_f1, "recall": token_f1},
            "block": {"f1": token_f1 / 2},
            "cleaneval": {"mean": 100 * token_f1},
        },
        "timing": {"extract_ms_per_page": 2.5, "fit_s": 0.0},
        "config": {"report": report, "extractor": {"_target_": "x"}, "dataset": {"split": "x"}},
        "finished_at": "2026-01-01T00:00:00",
    }
    if trained_on:
        summary["trained_on"] = trained_on
    if cv:
        summary["cv"] = {"folds": 5, "std": {"block_f1": 0.01}}
    if types:
        summary["by_page_type"] = {
            t: {"n_pages": 5, "n_errors": 0, "metrics": {"token": {"f1": f1}}} for t, f1 in types.items()
        }
    return summary


def _write(folder: Path, runs: list[dict]) -> None:
    for n, summary in enumerate(runs):
        run = folder / f"{n}_{summary['extractor']}_{summary['dataset']}"
        run.mkdir(parents=True)
        (run / "summary.json").write_text(json.dumps(summary))


@pytest.fixture
def built(tmp_path):
    runs = [
        _summary("table_datasets", "bte", "cleaneval", 0.8),
        _summary("table_datasets", "bte", "wcxb", 0.6, types={"article": 0.7, "forum": 0.4}),
        _summary("table_datasets", "crf", "cleaneval", 0.9),
        _summary("table_datasets", "crf", "wcxb", 0.7, types={"article": 0.9, "forum": 0.5}),
        _summary("table_datasets", "crf", "l3s_gn1", 0.85, trained_on="mix(cleaneval,dragnet,wcxb)/balanced"),
        _summary("table_datasets", "web2text", "l3s_gn1", 0.82, cv=True),
    ]
    matrix = {
        ("cleaneval", "cleaneval"): (0.9, None, False),
        ("cleaneval", "l3s_gn1"): (0.6, "cleaneval/cleaneval", False),
        ("cleaneval", "wcxb"): (0.5, "cleaneval/cleaneval", False),
        ("l3s_gn1", "cleaneval"): (0.7, "l3s_gn1/all", False),
        ("l3s_gn1", "l3s_gn1"): (0.85, None, True),
        ("l3s_gn1", "wcxb"): (0.4, "l3s_gn1/all", False),
        ("mixture", "cleaneval"): (0.88, "mix(cleaneval,dragnet,wcxb)/balanced", False),
        ("mixture", "l3s_gn1"): (0.8, "mix(cleaneval,dragnet,wcxb)/balanced", False),
        ("mixture", "wcxb"): (0.75, "mix(cleaneval,dragnet,wcxb)/balanced", False),
    }
    runs += [
        _summary("table_generalization", "crf", test, f1, trained_on=trained, cv=cv)
        for (_, test), (f1, trained, cv) in matrix.items()
    ]
    _write(tmp_path / "runs", runs)
    status = build_all([str(tmp_path / "runs")], tmp_path / "out")
    return tmp_path / "out", status


def test_training_source_of_a_run():
    assert training_source(pd.Series({"dataset": "wcxb", "trained_on": ""})) == "wcxb"
    assert training_source(pd.Series({"dataset": "wcxb", "trained_on": "l3s_gn1/all"})) == "l3s_gn1"
    assert training_source(pd.Series({"dataset": "x", "trained_on": "mix(a,b)/balanced"})) == "mixture"


def test_table_datasets_files_and_values(built):
    out, status = built
    for name in ("table_datasets", "table_datasets_token_f1", "table_generalization"):
        assert status[name] == "written"
        assert {p.suffix for p in out.glob(f"{name}.*")} == {".md", ".tex", ".csv"}
    table = pd.read_csv(out / "table_datasets.csv")
    assert list(table["dataset"]) == ["cleaneval", "cleaneval", "l3s_gn1", "l3s_gn1", "wcxb", "wcxb"]  # table order
    assert list(table["extractor"]) == ["crf", "bte", "crf", "web2text", "crf", "bte"]  # best token F1 first
    row = table[(table["extractor"] == "crf") & (table["dataset"] == "l3s_gn1")].iloc[0]
    assert (row["token F1"], row["block F1"], row["CleanEval"], row["errors"]) == (0.85, 0.425, 85.0, 1)
    assert row["protocol"] == "mixture" and row["ms/page"] == 2.5
    assert table[table["extractor"] == "web2text"].iloc[0]["protocol"] == "5-fold CV"
    assert set(table[table["extractor"] == "bte"]["protocol"]) == {"test split"}
    matrix = pd.read_csv(out / "table_datasets_token_f1.csv").set_index("extractor")
    assert matrix.loc["bte", "wcxb"] == 0.6 and pd.isna(matrix.loc["bte", "mean"])  # no l3s_gn1 run
    assert "| crf | 0.900 | 0.850 | 0.700 | 0.817 |" in (out / "table_datasets_token_f1.md").read_text()


def test_table_generalization_marks_and_means(built):
    out, _ = built
    table = pd.read_csv(out / "table_generalization.csv").set_index("trained on")
    assert list(table.index) == ["cleaneval", "l3s_gn1", "mixture"]
    assert table.loc["l3s_gn1", "cleaneval"] == 0.7
    # out of domain: cleaneval-trained on l3s_gn1 and wcxb; the mixture (cleaneval, dragnet, wcxb) on l3s_gn1
    assert table.loc["cleaneval", "mean out of domain"] == pytest.approx((0.6 + 0.5) / 2)
    assert table.loc["l3s_gn1", "mean out of domain"] == pytest.approx((0.7 + 0.4) / 2)
    assert table.loc["mixture", "mean out of domain"] == pytest.approx(0.8)
    assert table.loc["mixture", "mean"] == pytest.approx((0.88 + 0.8 + 0.75) / 3)
    text = (out / "table_generalization.md").read_text()
    assert "| crf | l3s_gn1 | 0.700 | 0.850* | 0.400 |" in text
    assert "| crf | mixture | 0.880* | 0.800 | 0.750* |" in text


def test_figures_are_written(built):
    out, status = built
    for name in ("fig_generalization", "fig_page_types"):
        assert status[name] == "written"
        assert (out / f"{name}.png").stat().st_size > 1000


def _write_runs(root, runs, ids):
    """Each (summary, per-page token F1) as a run folder under ``root``, one page row per id."""
    for n, (summary, f1) in enumerate(runs):
        run = root / f"{n}_{summary['extractor']}_{summary['dataset']}"
        run.mkdir(parents=True)
        (run / "summary.json").write_text(json.dumps({**summary, "n_pages": len(ids)}))
        pd.DataFrame({"page_id": ids, "token_f1": f1, "error": [""] * len(ids)}).to_csv(run / "pages.csv", index=False)
    return root


def test_table_headline_pairs_the_learned_run_with_each_reference(tmp_path):
    """The stack's and each reference's token F1 per dataset, the paired difference with its
    interval and p-value, and the WCXB page-type rows; a dataset without all three runs is left out."""
    ids = [f"p{k}" for k in range(8)]
    per_page = {"stack": [0.9] * 8, "trafilatura": [0.8] * 8, "readability": [0.9] * 8}
    runs = []
    for extractor, f1 in per_page.items():
        summary = _summary("table_headline", extractor, "cleaneval", sum(f1) / 8)
        summary["metrics"]["token"]["f1"] = sum(f1) / 8
        if extractor == "stack":
            summary["config"]["extractor"]["decoding"] = "by_page_type"
        runs.append((summary, f1))
    runs.append((_summary("table_headline", "stack", "dragnet", 0.5), [0.5] * 8))  # no references: left out
    status = build_all([str(_write_runs(tmp_path / "runs", runs, ids))], tmp_path / "out")
    assert status["table_headline"] == "written"
    table = pd.read_csv(tmp_path / "out" / "table_headline.csv")
    assert list(table["dataset"]) == ["cleaneval"]
    row = table.iloc[0]
    assert (row["stack"], row["trafilatura"], row["readability"]) == (0.9, 0.8, 0.9)
    # every page +0.1 over trafilatura: interval [+0.100, +0.100]; the same as readability: p 1
    assert row["stack − trafilatura"].startswith("+0.100 [+0.100, +0.100], p 0.00")
    assert row["stack − readability"] == "+0.000 [+0.000, +0.000], p 1"
    assert (
        "stack trained on its dataset's own training pages, decoding by_page_type;"
        in (tmp_path / "out" / "table_headline.md").read_text()
    )


def test_table_arbiter_pairs_the_arbiter_with_its_base_the_stack_and_the_references(tmp_path):
    """``table_arbiter``: the arbiter against each of the four on fig_speed_quality's runs, the
    latest run of each. What would fail: the stack's name or the references hard-wired, another
    experiment's runs, or an earlier run of the arbiter paired."""
    ids = [f"p{k}" for k in range(4)]
    per_page = {
        "arbiter": [0.9] * 4,
        "stack_fast": [0.8] * 4,
        "stack": [0.9, 0.9, 0.9, 1.0],
        "trafilatura": [0.7] * 4,
        "readability": [0.9] * 4,
    }
    runs = [(_summary("fig_speed_quality", e, "cleaneval", sum(f1) / 4), f1) for e, f1 in per_page.items()]
    runs.append((_summary("table_headline", "arbiter", "cleaneval", 0.1), [0.1] * 4))  # another experiment
    earlier = _summary("fig_speed_quality", "arbiter", "cleaneval", 0.2)
    runs.append(({**earlier, "finished_at": "2025-01-01T00:00:00"}, [0.2] * 4))
    status = build_all([str(_write_runs(tmp_path / "runs", runs, ids))], tmp_path / "out")
    assert status["table_arbiter"] == "written"
    row = pd.read_csv(tmp_path / "out" / "table_arbiter.csv").iloc[0]
    assert [row[e] for e in per_page] == [0.9, 0.8, 0.925, 0.7, 0.9]
    assert row["arbiter − stack_fast"].startswith("+0.100 [+0.100, +0.100]")
    assert row["arbiter − stack"].startswith("-0.025 [-0.075, +0.000]")
    assert row["arbiter − readability"] == "+0.000 [+0.000, +0.000], p 1"
    assert (
        "arbiter against stack_fast, stack, trafilatura and readability"
        in (tmp_path / "out" / "table_arbiter.md").read_text()
    )
    assert "\\label{tab:table_arbiter}" in (tmp_path / "out" / "table_arbiter.tex").read_text()


def test_table_headline_pairs_each_wcxb_page_type_on_its_own_pages(tmp_path):
    """What would fail: a per-type row left without its differences, or paired over all pages."""
    types = ["forum"] * 5 + ["article"] * 5
    # the stack is 0.2 above trafilatura on forums and level on articles; readability 0.1 below it everywhere
    per_page = {
        "stack": [0.8] * 5 + [0.9] * 5,
        "trafilatura": [0.6] * 5 + [0.9] * 5,
        "readability": [0.7] * 5 + [0.8] * 5,
    }
    for n, (extractor, f1) in enumerate(per_page.items()):
        summary = _summary("table_headline", extractor, "wcxb", sum(f1) / 10, types={"forum": 0.0, "article": 0.0})
        run = tmp_path / "runs" / f"{n}_{extractor}_wcxb"
        run.mkdir(parents=True)
        (run / "summary.json").write_text(json.dumps(summary))
        pages = {"page_id": [f"p{k}" for k in range(10)], "page_type": types, "token_f1": f1, "word_f1": f1}
        pd.DataFrame(pages).to_csv(run / "pages.csv", index=False)
    build_all([str(tmp_path / "runs")], tmp_path / "out")
    table = pd.read_csv(tmp_path / "out" / "table_headline.csv").set_index("dataset")
    assert table.loc["wcxb: forum", "stack − trafilatura"].startswith("+0.200 [+0.200, +0.200], p ")
    assert table.loc["wcxb: article", "stack − trafilatura"] == "+0.000 [+0.000, +0.000], p 1"
    assert table.loc["wcxb: article", "stack − readability"].startswith("+0.100 [+0.100, +0.100], p ")
    assert table.loc["wcxb", "stack − trafilatura"].iloc[0].startswith("+0.100 [")  # token F1 over all ten pages
    assert table.loc["wcxb: product", "stack − trafilatura"] == "–"  # no product page


def test_a_cross_validated_runs_row_says_what_its_folds_trained_on(tmp_path):
    from boilerbench.reports.collect import run_row

    summary = _summary("table_languages_cv", "stack", "daniel", 0.9, cv=True)
    summary["protocol"] = {"name": "cv", "folds": 5, "train_on": ["cleaneval", "daniel:all"]}
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    assert run_row(tmp_path / "summary.json")["cv.train_on"] == "cleaneval,daniel:all"
    del summary["protocol"]["train_on"]  # a reference extractor trains on nothing
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    assert "cv.train_on" not in run_row(tmp_path / "summary.json")
