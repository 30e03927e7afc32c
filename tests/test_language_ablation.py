"""table_language_ablation: the shipped setting's figures per language, then its paired gain over
each setting with one multilingual change undone, read from the runs' page rows."""

import numpy as np
import pandas as pd
import pytest
from conftest import scored_run

from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.language_ablation import (
    justext_stoplist,
    table_language_ablation,
    table_multilingual_cost,
    training_data,
)
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


def _headline_run(tmp_path, name: str, dataset: str, report: str, shift: float, **row: object) -> dict:
    """A run on a headline dataset's English pages whose page scores are RAMP shifted by ``shift``."""
    scores = {"en": [s + shift for s in RAMP]}
    run = scored_run(tmp_path / f"{name}_{dataset}", "language", scores, dataset=dataset, report=report, **row)
    return {**run, "token.f1": float(np.mean(scores["en"])), "n_pages": len(RAMP)}


def test_the_multilingual_cost_sets_the_shipped_models_against_the_english_stack(tmp_path):
    ablation = "table_language_ablation"
    english = {"extractor": "stack", "trained_on": ENGLISH, "param.text_rules": "web2text"}
    runs = pd.DataFrame(
        [
            _headline_run(
                tmp_path, "english", "cleaneval", ablation, 0.0, **english, **{"param.members": _members("English")}
            ),
            _headline_run(
                tmp_path,
                "shipped",
                "cleaneval",
                ablation,
                0.01,
                extractor="stack",
                trained_on=MULTI,
                **{"param.text_rules": "multilingual", "param.members": _members("auto")},
            ),
            # the stoplist ablation's setting (multilingual training, English stoplist) is neither
            _headline_run(
                tmp_path,
                "stoplist",
                "cleaneval",
                ablation,
                0.3,
                extractor="stack",
                trained_on=MULTI,
                **{"param.text_rules": "multilingual", "param.members": _members("English")},
            ),
            _headline_run(
                tmp_path, "arbiter", "cleaneval", "fig_speed_quality", -0.008, extractor="arbiter", trained_on=MULTI
            ),
            # the arbiter of another experiment, and a dataset without the English stack: neither read
            _headline_run(
                tmp_path, "arbiter_other", "cleaneval", "table_comments", 0.2, extractor="arbiter", trained_on=MULTI
            ),
            _headline_run(
                tmp_path, "arbiter_d", "dragnet", "fig_speed_quality", 0.0, extractor="arbiter", trained_on=MULTI
            ),
            # the arbiter over the full stack, on one of the two datasets with the English stack
            _headline_run(
                tmp_path, "english_l3s", "l3s_gn1", ablation, 0.0, **english, **{"param.members": _members("English")}
            ),
            _headline_run(
                tmp_path, "arbiter_stack", "cleaneval", "table_multilingual_cost", 0.004, extractor="arbiter_stack"
            ),
            _headline_run(
                tmp_path, "arbiter_stack_l3s", "l3s_gn1", "table_multilingual_cost", -0.1, extractor="arbiter_stack"
            ),
        ]
    )
    frame = table_multilingual_cost(runs).frame
    assert list(frame["dataset"]) == ["cleaneval", "l3s_gn1"]  # the headline's order
    l3s = frame.iloc[1]
    assert (l3s["stack"], l3s["arbiter"], l3s["stack − stack (English)"]) == ("–", "–", "–")
    assert l3s["arbiter_stack − stack (English)"].startswith("-0.100 [-0.100, -0.100], p ")
    row = frame.iloc[0]
    assert row["arbiter_stack − stack (English)"].startswith("+0.004 [+0.004, +0.004], p ")
    assert row["pages"] == str(len(RAMP))
    assert row["stack (English)"] == f"{np.mean(RAMP):.3f}"
    assert row["stack"] == f"{np.mean(RAMP) + 0.01:.3f}"
    assert row["arbiter"] == f"{np.mean(RAMP) - 0.008:.3f}"
    assert row["stack − stack (English)"].startswith("+0.010 [+0.010, +0.010], p ")
    assert row["arbiter − stack (English)"].startswith("-0.008 [-0.008, -0.008], p ")


def test_each_arbiters_refits_with_other_seeds_are_set_against_the_english_stacks_on_averaged_pages(tmp_path):
    cost = "table_multilingual_cost"
    english = {"extractor": "stack", "trained_on": ENGLISH, "param.text_rules": "web2text"}
    english |= {"param.members": _members("English")}
    arbiter = {"extractor": "arbiter", "trained_on": MULTI}

    def run(name: str, dataset: str, report: str, shift: float, seed: int, **row: object) -> dict:
        return {**_headline_run(tmp_path, name, dataset, report, shift, **row), "param.seed": seed}

    runs = pd.DataFrame(
        [
            run("english0", "cleaneval", "table_language_ablation", 0.0, 0, **english),
            run("arbiter0", "cleaneval", "fig_speed_quality", -0.008, 0, **arbiter),
            # seed 1: the arbiter 0.004 above the English stack; averaged over the seeds: -0.002
            run("english1", "cleaneval", cost, 0.02, 1, **english),
            run("arbiter1", "cleaneval", cost, 0.024, 1, **arbiter),
            # the arbiter over the full stack: its seed-0 and seed-1 runs share the report
            run("arbiter_stack0", "cleaneval", cost, 0.004, 0, extractor="arbiter_stack"),
            run("arbiter_stack1", "cleaneval", cost, 0.03, 1, extractor="arbiter_stack"),
            # a dataset where only the arbiter was refitted has no seed columns
            run("english0_d", "dragnet", "table_language_ablation", 0.0, 0, **english),
            run("arbiter0_d", "dragnet", "fig_speed_quality", 0.01, 0, **arbiter),
            run("arbiter1_d", "dragnet", cost, 0.3, 1, **arbiter),
        ]
    )
    frame = table_multilingual_cost(runs).frame.set_index("dataset")
    # the seed-1 refits replace neither seed-0 run
    assert frame.loc["cleaneval", "stack (English)"] == f"{np.mean(RAMP):.3f}"
    assert frame.loc["cleaneval", "arbiter − stack (English)"].startswith("-0.008 [-0.008, -0.008], p ")
    assert frame.loc["cleaneval", "arbiter − stack (English), seed 1"] == "+0.004"
    averaged = frame.loc["cleaneval", "arbiter − stack (English), seeds 0, 1 averaged"]
    assert averaged.startswith("-0.002 [-0.002, -0.002], p ")
    assert frame.loc["cleaneval", "arbiter_stack − stack (English)"].startswith("+0.004 [+0.004, +0.004], p ")
    assert frame.loc["cleaneval", "arbiter_stack − stack (English), seed 1"] == "+0.010"
    averaged = frame.loc["cleaneval", "arbiter_stack − stack (English), seeds 0, 1 averaged"]
    assert averaged.startswith("+0.007 [+0.007, +0.007], p ")
    assert frame.loc["dragnet", "arbiter − stack (English)"].startswith("+0.010 [+0.010, +0.010], p ")
    assert frame.loc["dragnet", "arbiter − stack (English), seeds 0, 1 averaged"] == "–"


def test_the_arbiter_trained_with_teaser_rails_is_a_column_of_its_own(tmp_path):
    # what would fail: the teaser-rail run (the latest) taken for arbiter_stack's, or its seed-1 refit
    # averaged in with arbiter_stack's seeds
    cost = "table_multilingual_cost"
    english = {"extractor": "stack", "trained_on": ENGLISH, "param.text_rules": "web2text"}
    english |= {"param.members": _members("English")}
    rails = {"extractor": "arbiter_stack", "trained_on": MULTI.replace(")", ",teaser_rails)")}
    runs = pd.DataFrame(
        [
            _headline_run(tmp_path, "english", "cleaneval", "table_language_ablation", 0.0, **english),
            _headline_run(tmp_path, "arbiter_stack", "cleaneval", cost, 0.004, extractor="arbiter_stack"),
            _headline_run(tmp_path, "rails", "cleaneval", cost, 0.01, **rails, finished_at="2026-12-08"),
            {
                **_headline_run(tmp_path, "english1", "cleaneval", cost, 0.0, **english),
                "param.seed": 1,
            },
            {**_headline_run(tmp_path, "rails1", "cleaneval", cost, 0.5, **rails), "param.seed": 1},
        ]
    )
    row = table_multilingual_cost(runs).frame.iloc[0]
    assert row["arbiter_stack − stack (English)"].startswith("+0.004 [+0.004, +0.004], p ")
    assert row["arbiter_stack, teaser rails − stack (English)"].startswith("+0.010 [+0.010, +0.010], p ")
    assert row["arbiter_stack, teaser rails − arbiter_stack"].startswith("+0.006 [+0.006, +0.006], p ")
    assert "arbiter_stack − stack (English), seed 1" not in row.index  # the rails refit is no arbiter_stack seed


def test_without_the_english_stack_the_multilingual_cost_is_missing(tmp_path):
    runs = pd.DataFrame(
        [
            _headline_run(
                tmp_path, "arbiter", "cleaneval", "fig_speed_quality", 0.0, extractor="arbiter", trained_on=MULTI
            )
        ]
    )
    with pytest.raises(MissingRuns, match="English"):
        table_multilingual_cost(runs)
