"""The error-rate gate less the pages an extractor declines by design, on hand-made run folders."""

import json
import re
import time
from pathlib import Path

import pandas as pd
import pytest
from omegaconf import OmegaConf

from boilerbench.experiments.declined import DeclinedPagesGate, declined_count

NO_STOPLIST = "NoStoplistError: jusText has no stoplist for the page's language (zh)"


def _job(sweep: Path, name: str, errors: list[str]) -> None:
    """A finished job of ``len(errors)`` pages ("" where a page has no error) with the runner's gate fields."""
    folder = sweep / name
    folder.mkdir(parents=True)
    n_errors = sum(1 for e in errors if e)
    pd.DataFrame({"page_id": [f"p{i}" for i in range(len(errors))], "error": errors}).to_csv(
        folder / "pages.csv", index=False
    )
    summary = {
        "extractor": name,
        "dataset": "chinese_wce",
        "n_pages": len(errors),
        "n_errors": n_errors,
        "errors": {f"p{i}": e for i, e in enumerate(errors) if e},
        "error_rate": n_errors / len(errors),
        "max_error_rate": 0.01,
        "error_rate_exceeded": n_errors / len(errors) > 0.01,
    }
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")


def _end(gate: DeclinedPagesGate, sweep: Path) -> None:
    gate.on_multirun_end(OmegaConf.create({"hydra": {"sweep": {"dir": str(sweep)}}}))


def test_declined_count_matches_at_the_start_only():
    patterns = [re.compile("NoStoplistError: ")]
    assert declined_count([NO_STOPLIST, "", "ValueError: NoStoplistError: ", NO_STOPLIST], patterns) == 2


def test_declined_pages_do_not_fail_the_sweep(tmp_path, capsys):
    gate = DeclinedPagesGate(["NoStoplistError: "])
    gate.started = time.time() - 1
    _job(tmp_path, "justext", [NO_STOPLIST, NO_STOPLIST, NO_STOPLIST, ""])
    _end(gate, tmp_path)  # 3 of 4 pages failed, all declined: no exit
    assert "justext on chinese_wce: 3 of 4" in capsys.readouterr().err


def test_other_errors_still_fail_it(tmp_path, capsys):
    gate = DeclinedPagesGate(["NoStoplistError: "])
    gate.started = time.time() - 1
    _job(tmp_path, "justext", [NO_STOPLIST, "ValueError: boom", "", ""])
    with pytest.raises(SystemExit) as exit_:
        _end(gate, tmp_path)
    assert exit_.value.code == 1 and "1 job(s) of this sweep exceeded max_error_rate" in capsys.readouterr().err
    # the plain gate's behaviour without patterns: declined pages count as errors
    gate = DeclinedPagesGate()
    gate.started = time.time() - 1
    other = tmp_path / "other"
    _job(other, "justext", [NO_STOPLIST, "", "", ""])
    with pytest.raises(SystemExit):
        _end(gate, other)
