"""table_comments: the arbiter, its sides and trafilatura under Dragnet's gold without and with comments."""

from pathlib import Path

import pandas as pd
import pytest

from boilerbench.reports.conventions import table_comments
from boilerbench.reports.figures import MissingRuns

#: Page token F1 of each extractor under each gold; pages c and d have comments.
SCORES = {
    ("stack_fast", "dragnet"): [0.8, 0.8, 0.8, 0.8],
    ("stack_fast", "dragnet_comments"): [0.8, 0.8, 0.5, 0.5],
    ("arbiter", "dragnet"): [0.8, 0.8, 0.9, 0.9],
    ("arbiter", "dragnet_comments"): [0.8, 0.8, 0.4, 0.4],
    ("readability", "dragnet"): [0.7, 0.7, 1.0, 1.0],
    ("readability", "dragnet_comments"): [0.7, 0.7, 0.3, 0.3],
    ("trafilatura", "dragnet"): [0.6, 0.6, 0.6, 0.6],
    ("trafilatura", "dragnet_comments"): [0.6, 0.6, 0.5, 0.5],
}
SIDES = ("arbiter", "stack_fast", "readability", "trafilatura")
GOLD_TOKENS = {"dragnet": [100, 50, 80, 60], "dragnet_comments": [100, 50, 120, 90]}


def _run(folder: Path, extractor: str, dataset: str) -> dict:
    folder.mkdir()
    lines = ["page_id,token_f1,n_gold_tokens"]
    rows = zip("abcd", SCORES[(extractor, dataset)], GOLD_TOKENS[dataset], strict=True)
    lines += [f"{p},{f1},{n}" for p, f1, n in rows]
    (folder / "pages.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {
        "run_dir": str(folder),
        "extractor": extractor,
        "dataset": dataset,
        "trained_on": "mix(dragnet)/balanced",
        "finished_at": "2026-12-07T00:00:00",
    }


def test_each_gold_on_all_pages_and_on_those_with_comments(tmp_path):
    # what would fail: the golds swapped, the pages with comments found wrong (by F1, not by gold
    # tokens), a difference's sign flipped or taken against the wrong extractor
    runs = pd.DataFrame([_run(tmp_path / f"{e}_{d}", e, d) for e, d in SCORES])
    table = table_comments(runs).frame.set_index(["pages", "gold"])
    assert list(table.index) == [
        ("all (4)", "without comments"),
        ("all (4)", "with comments"),
        ("with comments (2)", "without comments"),
        ("with comments (2)", "with comments"),
    ]
    row = table.loc[("all (4)", "without comments")]
    assert list(row[list(SIDES)]) == ["0.850", "0.800", "0.850", "0.600"]
    assert row["arbiter − stack_fast"].startswith("+0.050 [")
    assert row["readability − stack_fast"].startswith("+0.050 [")
    row = table.loc[("all (4)", "with comments")]
    assert list(row[list(SIDES)]) == ["0.600", "0.650", "0.500", "0.550"]
    row = table.loc[("with comments (2)", "without comments")]
    assert row["arbiter − stack_fast"].startswith("+0.100 [+0.100, +0.100]")
    row = table.loc[("with comments (2)", "with comments")]
    assert row["arbiter − stack_fast"].startswith("-0.100 [-0.100, -0.100]")
    assert row["readability − stack_fast"].startswith("-0.200 [-0.200, -0.200]")


def test_without_every_run_it_names_the_experiment(tmp_path):
    runs = pd.DataFrame([_run(tmp_path / f"{e}_{d}", e, d) for e, d in SCORES if e != "trafilatura"])
    with pytest.raises(MissingRuns, match="experiment=table_comments"):
        table_comments(runs)
