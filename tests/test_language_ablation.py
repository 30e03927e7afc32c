"""table_language_ablation: the shipped setting's figures per language, then its paired gain over
each setting with one multilingual change undone, read from the runs' page rows."""

import numpy as np
import pandas as pd
import pytest
from conftest import scored_run

from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.language_ablation import justext_stoplist, table_language_ablation, training_data
from boilerbench.reports.languages import MIN_PAGES

RAMP = [0.5 + 0.4 * k / MIN_PAGES for k in range(MIN_PAGES)]  # varied scores: intervals are not points
FEW = [0.5] * (MIN_PAGES - 1)  # a language with too few pages for a column


def _members(stoplist: str) -> str:
    """``param.members`` of a stack run as runs.csv has it (the members' configs as a literal)."""
    justext = {"_target_": "boilerbench.extractors.references.JusText", "stoplist": stoplist}
    return str({"readability": {"_target_": "boilerbench.extractors.references.Readability"}, "justext": justext})


def _run(tmp_path, trained_on: str, rules: str, scores: dict[str, list[float]], stoplist: str | None = None) -> dict:
    extractor = "stack_fast" if stoplist is None else "stack"
    row = {"extractor": extractor, "dataset": "daniel", "trained_on": trained_on, "param.text_rules": rules}
    if stoplist is not None:
        row["param.members"] = _members(stoplist)
    run = scored_run(tmp_path / f"{extractor}_{rules}_{len(trained_on)}_{stoplist}", "language", scores, **row)
    for lang, values in scores.items():  # as runs.csv has it
        run[f"lang.{lang}.token.f1_ci95"] = f"[{np.mean(values) - 0.1}, {np.mean(values) + 0.1}]"
    return run


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
    frame = table.frame.set_index(["extractor", "training data", "text rules"])
    assert list(frame.columns) == ["jusText stoplist", "figure", "daniel:el", "daniel:en"]  # xx has too few pages
    shipped, english = ("stack_fast", "multilingual", "multilingual"), ("stack_fast", "English", "multilingual")
    assert frame.loc[shipped, "daniel:en"] == f"{np.mean(RAMP):.3f} ±0.100"
    assert frame.loc[english, "daniel:en"].startswith("+0.200 [+0.200, +0.200], p ")
    assert frame.loc[english, "daniel:el"].startswith("+0.000 [+0.000, +0.000], p 1")
    assert frame.loc[("stack_fast", "multilingual", "web2text"), "daniel:el"].startswith("-0.050 [-0.050, -0.050], p ")
    assert list(frame.index) == [shipped, ("stack_fast", "multilingual", "web2text"), english]
    assert set(frame["jusText stoplist"]) == {"–"}  # stack_fast has no jusText member


def test_the_stacks_stoplist_rows_follow_stack_fasts(tmp_path):
    runs = pd.DataFrame(
        [
            _run(tmp_path, MULTI, "multilingual", {"en": RAMP, "el": RAMP}),
            _run(tmp_path, MULTI, "multilingual", {"en": RAMP, "el": [s + 0.1 for s in RAMP]}, stoplist="auto"),
            _run(tmp_path, MULTI, "multilingual", {"en": RAMP, "el": RAMP}, stoplist="English"),
        ]
    )
    frame = table_language_ablation(runs).frame
    assert list(zip(frame["extractor"], frame["jusText stoplist"], frame["figure"], strict=True)) == [
        ("stack_fast", "–", "token F1"),
        ("stack", "auto", "token F1"),
        ("stack", "English", "shipped − this"),
    ]
    assert frame.loc[2, "daniel:el"].startswith("+0.100 [+0.100, +0.100], p ")
    assert frame.loc[2, "daniel:en"].startswith("+0.000 [+0.000, +0.000], p 1")


@pytest.mark.parametrize(
    ("members", "expected"),
    [
        (_members("English"), "English"),
        (_members("auto"), "auto"),
        ({"justext": {"stoplist": "English"}}, "English"),  # as a run folder's summary gives it
        (float("nan"), ""),
    ],
)
def test_justext_stoplist_is_the_stacks_members(members, expected):
    assert justext_stoplist(pd.Series({"param.members": members})) == expected


def test_without_the_shipped_settings_runs_the_table_is_missing(tmp_path):
    runs = pd.DataFrame([_run(tmp_path, ENGLISH, "web2text", {"en": RAMP})])
    with pytest.raises(MissingRuns, match="shipped setting"):
        table_language_ablation(runs)


@pytest.mark.parametrize(("trained_on", "expected"), [(MULTI, "multilingual"), (ENGLISH, "English"), (None, "English")])
def test_training_data_is_multilingual_when_the_mixture_holds_a_multilingual_set(trained_on, expected):
    assert training_data(pd.Series({"trained_on": trained_on})) == expected
