"""table_page_type_ablation: the shipped setting's token F1 per dataset and page type, then its
paired gain over each setting with one page-type change undone, from the runs' page rows."""

import numpy as np
import pandas as pd
import pytest
from conftest import scored_run

from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.page_type_ablation import SETTINGS, is_shipped, table_page_type_ablation, type_columns

RAMP = [0.5 + 0.02 * k for k in range(10)]  # varied scores: intervals are not points


SHIPPED = {
    "param.item_groups": True,
    "param.structured_blocks": True,
    "param.type_evidence": True,
    "param.product_fallback": True,
    "param.decoding": "by_page_type",
    "param.type_features": True,
}


def _run(tmp_path, name: str, params: dict, scores: dict[str, list[float]], dataset: str = "wcxb") -> dict:
    row = {"extractor": "stack_fast", "dataset": dataset} | SHIPPED | params
    return scored_run(tmp_path / f"{name}_{dataset}", "page_type", scores, **row)


def test_each_undone_change_is_the_shipped_setting_minus_it_per_type(tmp_path):
    runs = pd.DataFrame(
        [
            _run(tmp_path, "shipped", {}, {"forum": [s + 0.2 for s in RAMP], "article": RAMP}),
            _run(tmp_path, "items", {"param.item_groups": False}, {"forum": RAMP, "article": RAMP}),
            _run(
                tmp_path,
                "types",
                {"param.decoding": "threshold", "param.type_features": False},
                {"forum": [s + 0.1 for s in RAMP], "article": [s + 0.05 for s in RAMP]},
            ),
        ]
    )
    frame = table_page_type_ablation(runs).frame.set_index(["item groups", "structured data", "page types"])
    assert list(frame.columns) == ["extractor", "figure", "wcxb:article", "wcxb:forum"]  # PAGE_TYPES order
    assert frame.loc[("on", "on", "on"), "wcxb:forum"].startswith(f"{np.mean(RAMP) + 0.2:.3f}")
    # without item groups the forum loses 0.2 on every page, the article nothing
    assert frame.loc[("off", "on", "on"), "wcxb:forum"].startswith("+0.200 [+0.200, +0.200], p ")
    assert frame.loc[("off", "on", "on"), "wcxb:article"].startswith("+0.000 [+0.000, +0.000], p 1")
    # without the classifier the article gains 0.05: the shipped setting is 0.05 below it
    assert frame.loc[("on", "on", "off"), "wcxb:article"].startswith("-0.050 [-0.050, -0.050], p ")
    assert list(frame.index) == [("on", "on", "on"), ("on", "on", "off"), ("off", "on", "on")]


def test_structured_data_is_off_when_any_of_its_three_switches_is():
    run = pd.Series({"param.structured_blocks": True, "param.type_evidence": True, "param.product_fallback": False})
    assert SETTINGS["structured data"](run) == "off"
    assert SETTINGS["structured data"](run.replace(False, True)) == "on"


def test_page_types_need_the_decoding_by_type_and_the_second_stages_probabilities():
    by_type = pd.Series({"param.decoding": "by_page_type", "param.type_features": True})
    assert SETTINGS["page types"](by_type) == "on"
    assert SETTINGS["page types"](by_type.replace("by_page_type", "threshold")) == "off"
    assert not is_shipped(pd.Series({"item groups": "on", "structured data": "on", "page types": "off"}))


def test_type_columns_are_the_types_with_pages_per_dataset(tmp_path):
    runs = pd.DataFrame(
        [
            _run(tmp_path, "a", {}, {"listing": RAMP, "article": RAMP}),
            _run(tmp_path, "b", {}, {"forum": RAMP}, dataset="magic_html"),
        ]
    )
    assert type_columns(runs) == [("magic_html", "forum"), ("wcxb", "article"), ("wcxb", "listing")]


def test_without_the_shipped_settings_runs_the_table_is_missing(tmp_path):
    runs = pd.DataFrame([_run(tmp_path, "items", {"param.item_groups": False}, {"forum": RAMP})])
    with pytest.raises(MissingRuns, match="shipped setting"):
        table_page_type_ablation(runs)
