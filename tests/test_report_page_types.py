"""table_page_types: the page-type classifier's confusion matrix, read from the runs' page rows."""

import pandas as pd
import pytest

from boilerbench.reports.artefacts import ARTEFACTS
from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.page_types import calibration_error, table_page_types, wilson


def _run(tmp_path, name, extractor, dataset, rows, decoding="by_page_type", finished="2026-12-01T00:00:00"):
    """A runs.csv row whose folder holds ``rows`` as pages.csv: (gold, predicted, confidence)."""
    folder = tmp_path / name
    folder.mkdir()
    lines = ["page_id,page_type,predicted_page_type,page_type_confidence,token_f1"]
    lines += [f"p{k},{g},{p},{c},0.9" for k, (g, p, c) in enumerate(rows)]
    (folder / "pages.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {
        "run_dir": str(folder),
        "extractor": extractor,
        "dataset": dataset,
        "param.decoding": decoding,
        "finished_at": finished,
    }


WCXB = [
    ("article", "article", 0.9),
    ("article", "article", 0.9),
    ("article", "listing", 0.6),
    ("forum", "forum", 0.7),
    ("listing", "article", 0.3),
    ("product", "", 0.5),  # no prediction: left out
]


def _table(tmp_path, *extra):
    runs = pd.DataFrame([_run(tmp_path, "stack_wcxb", "stack", "wcxb", WCXB), *extra])
    return table_page_types(runs)


def test_counts_recall_accuracy_and_calibration_by_hand(tmp_path):
    table = _table(tmp_path)
    numbers = table.numbers.set_index("gold type")
    assert list(numbers.index) == ["article", "forum", "listing", "all"]  # product has no prediction
    article = numbers.loc["article"]
    assert (article["pages"], article["article"], article["listing"], article["forum"]) == (3, 2, 1, 0)
    assert article["recall"] == pytest.approx(2 / 3)
    assert (article["low"], article["high"]) == pytest.approx(wilson(2, 3))
    assert numbers.loc["listing", "recall"] == 0.0 and numbers.loc["listing", "article"] == 1
    overall = numbers.loc["all"]
    # columns of the row all: the pages predicted as each type
    assert (overall["pages"], overall["article"], overall["listing"], overall["forum"]) == (5, 3, 1, 1)
    assert overall["recall"] == pytest.approx(3 / 5)
    # bins of 0.2: 0.3 (wrong) alone; 0.6 (wrong) and 0.7 (right) together; 0.9, 0.9 (right)
    expected = (abs(0 - 0.3) + 2 * abs(0.5 - 0.65) + 2 * abs(1 - 0.9)) / 5
    assert overall["ece"] == pytest.approx(expected)
    assert calibration_error([0.3, 0.6, 0.7, 0.9, 0.9], [False, False, True, True, True]) == pytest.approx(expected)
    shown = table.frame.set_index("gold type")
    assert shown.loc["all", "recall (all: accuracy)"] == f"0.600 [{wilson(3, 5)[0]:.3f}, {wilson(3, 5)[1]:.3f}]"
    assert shown.loc["article", "ECE"] == "–" and shown.loc["all", "ECE"] == f"{expected:.3f}"
    assert "confusion matrix" in table.markdown() and "\\begin{tabular}" in table.latex()


def test_only_the_latest_page_typed_run_of_an_extractor_and_dataset_counts(tmp_path):
    older = _run(tmp_path, "old", "stack", "wcxb", [("forum", "article", 0.5)], finished="2026-11-01T00:00:00")
    untyped = _run(tmp_path, "thresholded", "stack_fast", "wcxb", [("forum", "article", 0.5)], decoding="threshold")
    no_types = _run(tmp_path, "stack_cleaneval", "stack", "cleaneval", [("", "article", 0.9)])
    table = _table(tmp_path, older, untyped, no_types)
    assert set(table.numbers["extractor"]) == {"stack"} and set(table.numbers["dataset"]) == {"wcxb"}
    assert table.numbers.set_index("gold type").loc["all", "pages"] == 5


def test_no_page_typed_run_is_missing_runs(tmp_path):
    runs = pd.DataFrame([_run(tmp_path, "t", "trafilatura", "wcxb", WCXB, decoding=None)])
    with pytest.raises(MissingRuns, match="by page type"):
        table_page_types(runs)


def test_the_artefact_reads_the_headline_runs_and_the_language_runs_when_there():
    (artefact,) = [a for a in ARTEFACTS if a.name == "table_page_types"]
    assert artefact.needs == ("table_headline",) and "table_languages" in artefact.experiments
