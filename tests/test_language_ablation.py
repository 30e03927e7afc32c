"""table_language_ablation: the shipped setting's figures per language, then its paired gain over
each setting with one multilingual change undone, read from the runs' page rows."""

import numpy as np
import pandas as pd
import pytest

from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.language_ablation import table_language_ablation, training_data
from boilerbench.reports.languages import MIN_PAGES

RAMP = [0.5 + 0.4 * k / MIN_PAGES for k in range(MIN_PAGES)]  # varied scores: intervals are not points
FEW = [0.5] * (MIN_PAGES - 1)  # a language with too few pages for a column


def _run(tmp_path, trained_on: str, rules: str, scores: dict[str, list[float]]) -> dict:
    folder = tmp_path / f"{rules}_{len(trained_on)}"
    folder.mkdir()
    lines = ["page_id,language,token_f1"]
    lines += [f"{lang}{k},{lang},{f1}" for lang, values in scores.items() for k, f1 in enumerate(values)]
    (folder / "pages.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    row = {
        "run_dir": str(folder),
        "extractor": "stack_fast",
        "dataset": "daniel",
        "trained_on": trained_on,
        "param.text_rules": rules,
        "finished_at": "2026-12-03T00:00:00",
    }
    for lang, values in scores.items():
        row[f"lang.{lang}.n_pages"] = len(values)
        row[f"lang.{lang}.token.f1"] = float(np.mean(values))
        row[f"lang.{lang}.token.f1_ci95"] = f"[{np.mean(values) - 0.1}, {np.mean(values) + 0.1}]"  # as runs.csv has it
    return row


MULTI = "mix(cleaneval,dragnet,wcxb,daniel,magic_html)/balanced_languages"
ENGLISH = "mix(cleaneval,dragnet,wcxb)/balanced"


def test_each_setting_is_the_shipped_one_minus_it_per_language(tmp_path):
    runs = pd.DataFrame(
        [
            _run(tmp_path, MULTI, "multilingual", {"en": RAMP, "el": RAMP, "xx": FEW}),
            _run(tmp_path, ENGLISH, "multilingual", {"en": [s - 0.2 for s in RAMP], "el": RAMP, "xx": FEW}),
            _run(tmp_path, MULTI, "web2text", {"en": RAMP, "el": [s + 0.05 for s in RAMP], "xx": FEW}),
        ]
    )
    table = table_language_ablation(runs)
    frame = table.frame.set_index(["training data", "text rules"])
    assert list(frame.columns) == ["figure", "daniel:el", "daniel:en"]  # xx has too few pages
    assert frame.loc[("multilingual", "multilingual"), "daniel:en"] == f"{np.mean(RAMP):.3f} ±0.100"
    assert frame.loc[("English", "multilingual"), "daniel:en"].startswith("+0.200 [+0.200, +0.200], p ")
    assert frame.loc[("English", "multilingual"), "daniel:el"].startswith("+0.000 [+0.000, +0.000], p 1")
    assert frame.loc[("multilingual", "web2text"), "daniel:el"].startswith("-0.050 [-0.050, -0.050], p ")
    assert list(frame.index) == [
        ("multilingual", "multilingual"),
        ("multilingual", "web2text"),
        ("English", "multilingual"),
    ]


def test_without_the_shipped_settings_runs_the_table_is_missing(tmp_path):
    runs = pd.DataFrame([_run(tmp_path, ENGLISH, "web2text", {"en": RAMP})])
    with pytest.raises(MissingRuns, match="shipped setting"):
        table_language_ablation(runs)


@pytest.mark.parametrize(("trained_on", "expected"), [(MULTI, "multilingual"), (ENGLISH, "English"), (None, "English")])
def test_training_data_is_multilingual_when_the_mixture_holds_a_multilingual_set(trained_on, expected):
    assert training_data(pd.Series({"trained_on": trained_on})) == expected
