"""table_training_weights: the stack with DANIEL weighing twice against the shipped stack, over seeds."""

import pandas as pd
import pytest

from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.languages import MIN_PAGES
from boilerbench.reports.significance import seed_mean
from boilerbench.reports.training_weights import setting_of, table_training_weights
from tests.conftest import scored_run

SHIPPED = "mix(cleaneval,daniel)/balanced_languages"
WEIGHTED = "mix(cleaneval,daniel*2)/balanced_languages"


def _run(tmp_path, dataset: str, trained_on: str, seed: int, scores: dict) -> dict:
    name = f"{dataset}_{setting_of(trained_on)}_{seed}".replace(" ", "")
    row = scored_run(tmp_path / name, "language", scores, extractor="stack", dataset=dataset, trained_on=trained_on)
    return row | {"param.seed": seed}


def test_weighted_minus_shipped_per_seed_and_over_the_seeds(tmp_path):
    # what would fail: the seeds' runs mixed up or one seed's taken for the mean, the difference's sign
    # flipped, a language of a few pages given a row, or a dataset missing a seed's run shown
    n = MIN_PAGES
    ramp = [0.5 + 0.4 * k / n for k in range(n)]
    few = [0.5, 0.6]

    def shifted(d: float) -> list[float]:
        return [s + d for s in ramp]

    runs = pd.DataFrame(
        [
            _run(tmp_path, "wcxb", SHIPPED, 0, {"en": ramp}),
            _run(tmp_path, "wcxb", SHIPPED, 1, {"en": shifted(-0.02)}),
            _run(tmp_path, "wcxb", WEIGHTED, 0, {"en": shifted(-0.01)}),
            _run(tmp_path, "wcxb", WEIGHTED, 1, {"en": shifted(-0.01)}),  # -0.010 and +0.010: level on average
            _run(tmp_path, "daniel", SHIPPED, 0, {"el": ramp, "ru": ramp, "pl": few}),
            _run(tmp_path, "daniel", SHIPPED, 1, {"el": ramp, "ru": ramp, "pl": few}),
            _run(tmp_path, "daniel", WEIGHTED, 0, {"el": shifted(0.02), "ru": ramp, "pl": few}),
            _run(tmp_path, "daniel", WEIGHTED, 1, {"el": shifted(0.04), "ru": ramp, "pl": few}),
            _run(tmp_path, "cleaneval", SHIPPED, 0, {"en": ramp}),  # no other run: no row
        ]
    )
    table = table_training_weights(runs).frame.set_index(["dataset", "language"])
    assert list(table.index) == [("wcxb", "all"), ("daniel", "all"), ("daniel", "el"), ("daniel", "ru")]
    wcxb = table.loc[("wcxb", "all")]
    assert (wcxb["− shipped, seed 0"], wcxb["− shipped, seed 1"]) == ("-0.010", "+0.010")
    assert wcxb["− shipped, seeds averaged"].startswith("+0.000 [+0.000, +0.000]")
    assert wcxb["shipped"] == f"{sum(ramp) / n - 0.01:.3f}"
    greek = table.loc[("daniel", "el")]
    assert (greek["− shipped, seed 0"], greek["− shipped, seed 1"]) == ("+0.020", "+0.040")
    assert greek["− shipped, seeds averaged"].startswith("+0.030 [+0.030, +0.030]") and greek["pages"] == str(n)
    assert table.loc[("daniel", "all"), "pages"] == str(2 * n + 2)


def test_seed_mean_averages_each_page_over_the_runs():
    one = pd.DataFrame({"page_id": ["a", "b"], "language": ["en", "el"], "token_f1": [0.2, 0.6]})
    two = pd.DataFrame({"page_id": ["b", "a"], "language": ["el", "en"], "token_f1": [1.0, 0.4]})
    mean = seed_mean([one, two]).set_index("page_id")
    assert mean.loc["a", "token_f1"] == pytest.approx(0.3) and mean.loc["b", "token_f1"] == pytest.approx(0.8)
    assert mean.loc["b", "language"] == "el"


def test_without_both_settings_it_names_the_experiment(tmp_path):
    runs = pd.DataFrame([_run(tmp_path, "wcxb", SHIPPED, 0, {"en": [0.5, 0.7]})])
    with pytest.raises(MissingRuns, match="experiment=table_training_weights"):
        table_training_weights(runs)
    with pytest.raises(MissingRuns, match="experiment=table_training_weights"):  # no stack run at all
        table_training_weights(pd.DataFrame({"extractor": ["bte"], "dataset": ["wcxb"], "trained_on": [""]}))
