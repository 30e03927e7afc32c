"""table_training_weights: the stack with DANIEL weighing twice against the shipped stack."""

import pandas as pd
import pytest

from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.languages import MIN_PAGES
from boilerbench.reports.training_weights import table_training_weights
from tests.conftest import scored_run

SHIPPED = "mix(cleaneval,daniel)/balanced_languages"
WEIGHTED = "mix(cleaneval,daniel*2)/balanced_languages"


def _run(tmp_path, name: str, dataset: str, report: str, trained_on: str, scores: dict, when: str) -> dict:
    row = scored_run(
        tmp_path / name, "language", scores, extractor="stack", dataset=dataset, report=report, trained_on=trained_on
    )
    everything = [f1 for values in scores.values() for f1 in values]
    return row | {"token.f1": sum(everything) / len(everything), "finished_at": when}


def test_weighted_minus_shipped_per_dataset_and_language(tmp_path):
    # what would fail: the English-only stack of table_languages (a later run) taken for the shipped one,
    # the difference's sign flipped, or a language with too few pages given a row
    n = MIN_PAGES
    ramp = [0.5 + 0.4 * k / n for k in range(n)]
    few = [0.5, 0.6]  # a language of two pages: no row of its own
    runs = pd.DataFrame(
        [
            _run(tmp_path, "h", "wcxb", "table_headline", SHIPPED, {"en": ramp}, "2026-12-01"),
            _run(
                tmp_path,
                "hw",
                "wcxb",
                "table_training_weights",
                WEIGHTED,
                {"en": [s - 0.01 for s in ramp]},
                "2026-12-03",
            ),
            _run(
                tmp_path, "d", "daniel", "table_languages", SHIPPED, {"el": ramp, "ru": ramp, "pl": few}, "2026-12-01"
            ),
            _run(
                tmp_path,
                "e",
                "daniel",
                "table_languages",
                "mix(cleaneval)/balanced",
                {"el": ramp, "ru": ramp, "pl": few},
                "2026-12-02",
            ),
            _run(
                tmp_path,
                "dw",
                "daniel",
                "table_training_weights",
                WEIGHTED,
                {"el": [s + 0.02 for s in ramp], "ru": ramp, "pl": few},
                "2026-12-03",
            ),
        ]
    )
    table = table_training_weights(runs).frame.set_index(["dataset", "language"])
    assert list(table.index) == [
        ("wcxb", "all"),
        ("daniel", "all"),
        ("daniel", "el"),
        ("daniel", "ru"),
    ]  # wcxb: one language
    assert table.loc[("wcxb", "all"), "DANIEL ×2 − shipped"].startswith("-0.010 [-0.010, -0.010]")
    assert table.loc[("daniel", "el"), "DANIEL ×2 − shipped"].startswith("+0.020 [+0.020, +0.020]")
    assert table.loc[("daniel", "el"), "pages"] == str(n)
    assert table.loc[("daniel", "all"), "pages"] == str(2 * n + 2)
    assert table.loc[("daniel", "ru"), "DANIEL ×2 − shipped"].startswith("+0.000")


def test_without_the_weighted_runs_it_names_the_experiment(tmp_path):
    runs = pd.DataFrame([_run(tmp_path, "h", "wcxb", "table_headline", SHIPPED, {"en": [0.5, 0.7]}, "2026-12-01")])
    with pytest.raises(MissingRuns, match="experiment=table_training_weights"):
        table_training_weights(runs)
