"""table_cleaneval2007: its experiment configs compose, and the table shows the runs' figures,
the published ones and both rankings."""

from __future__ import annotations

import json

import pytest
from hydra import compose, initialize_config_dir
from registry import CONF

from boilerbench.experiments.runner import build
from boilerbench.reports.cleaneval2007 import cleaneval2007_table, ranks, variant
from boilerbench.reports.collect import collect


@pytest.mark.parametrize(
    ("name", "sweep"),
    [
        ("table_cleaneval2007", "crf,wcc,kimatu,htmlcleaner,genieknows,stupidos"),
        ("table_cleaneval2007_wcc", "baseline,tree,lm,genetic"),
        ("table_cleaneval2007_fiasco", "true,false"),
    ],
)
def test_experiment_configs_compose(name, sweep):
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose("config", overrides=[f"experiment={name}"], return_hydra_config=True)
    assert cfg.report == "table_cleaneval2007" and cfg.dataset.split == "cleaneval"
    assert ",".join(str(v) for v in cfg.hydra.sweeper.params.values()) == sweep
    build(cfg.extractor)


def _run(folder, extractor, params, to, tm, structured):
    folder.mkdir(parents=True)
    summary = {
        "extractor": extractor,
        "dataset": "cleaneval",
        "split": "cleaneval",
        "n_pages": 2,
        "n_errors": 0,
        "finished_at": "2026-01-01T00:00:00",
        "timing": {"extract_ms_per_page": 1.0, "fit_s": 2.0},
        "config": {
            "report": "table_cleaneval2007",
            "extractor": {"_target_": "x", **params},
            "dataset": {"split": "cleaneval"},
        },
        "metrics": {"cleaneval": {"mean": to, "markup_mean": tm, "mean_2007": (to + tm) / 2}, "block": {"f1": 0.5}},
    }
    (folder / "summary.json").write_text(json.dumps(summary))
    (folder / "pages.csv").write_text(f"page_id,structured\n1,{structured[0]}\n2,{structured[1]}\n")


def test_table_rows_published_figures_and_rankings(tmp_path):
    _run(tmp_path / "a", "crf", {}, 86.0, 70.0, ("True", "True"))
    _run(tmp_path / "b", "wcc", {"method": "heuristic"}, 84.0, 74.0, ("True", "False"))
    _run(tmp_path / "c", "wcc", {"method": "tree"}, 85.0, 60.0, ("True", "True"))
    _run(tmp_path / "d", "fiasco", {"visual": False}, 80.0, 60.0, ("True", "True"))
    runs = collect([tmp_path])
    assert sorted(variant(r) for _, r in runs.iterrows()) == ["crf", "fiasco_text", "wcc", "wcc_tree"]
    table = cleaneval2007_table(runs).frame.set_index("run")
    assert table.loc["crf", "2007 score"] == "78.00" and table.loc["crf", "2007 score (pub.)"] == "74.7"
    assert table.loc["crf", "TM (pub.)"] == "65.3" and table.loc["crf", "TO (pub.)"] == "84.1"
    assert table.loc["wcc", "own structure"] == "50%" and table.loc["wcc_tree", "2007 score (pub.)"] == "52.4"
    # ranks among the competition's entries present: Victor 74.7 > WCC 74.2 published; ours 79.0 > 78.0
    assert (table.loc["crf", "rank (pub.)"], table.loc["wcc", "rank (pub.)"]) == ("1", "2")
    assert (table.loc["crf", "rank (ours)"], table.loc["wcc", "rank (ours)"]) == ("2", "1")
    assert table.loc["wcc_tree", "rank (ours)"] == "–" and list(table.index)[0] == "wcc"  # sorted by our 2007 score
    assert ranks({"a": 2.0, "b": 2.0, "c": 1.0}) == {"a": 1, "b": 1, "c": 3}
