"""``boilerbench report reproduce`` (boilerbench/reports/reproduce.py): an archived run is run
again from its saved overrides and its figures compared with the archived ones to the last digit."""

from __future__ import annotations

import json
import subprocess
import sys

from boilerbench.reports.archive import pack
from boilerbench.reports.reproduce import differences, figures, main

PAGE = "<body><div><a>Home</a> | <a>About</a></div><p>" + "word " * 40 + "</p></body>"


def test_the_figures_are_every_number_of_the_metrics_per_page_type_and_language():
    summary = {
        "metrics": {"token": {"f1": 0.5, "f1_ci95": [0.4, 0.6], "label": "x", "ok": True}},
        "by_page_type": {"forum": {"n_pages": 3, "metrics": {"token": {"f1": 0.25}}}},
        "by_language": {"el": {"n_pages": 2, "metrics": {"token": {"f1_ci95": [0.1, 0.3]}}}},
    }
    assert figures(summary) == {
        "token.f1": 0.5,
        "token.f1_ci95.0": 0.4,
        "token.f1_ci95.1": 0.6,
        "type.forum.n_pages": 3.0,
        "type.forum.token.f1": 0.25,
        "lang.el.n_pages": 2.0,
        "lang.el.token.f1_ci95.0": 0.1,
        "lang.el.token.f1_ci95.1": 0.3,
    }


def test_differences_beyond_the_order_of_a_sum_are_reported_and_within_it_are_not():
    stored = {"metrics": {"token": {"f1_ci95": [0.8446481579505825], "score": 82.36490040039136}}}
    # a bootstrap bound summed in another order on another CPU: the same result
    rerun = {"metrics": {"token": {"f1_ci95": [0.8446481579505827], "score": 82.36490040039135}}}
    assert differences(stored, rerun) == []
    assert differences(stored, rerun, tolerance=0.0) == [
        ("token.f1_ci95.0", 0.8446481579505825, 0.8446481579505827),
        ("token.score", 82.36490040039136, 82.36490040039135),
    ]


def test_differences_are_the_figures_that_moved_and_those_one_side_lacks():
    stored = {"metrics": {"token": {"f1": 0.9136946, "p": float("nan"), "gone": 1.0}}}
    rerun = {"metrics": {"token": {"f1": 0.9136773, "p": float("nan"), "new": 2.0}}}
    # NaN equals NaN (an undefined figure stays undefined); a figure one side lacks is None there
    assert differences(stored, rerun) == [
        ("token.f1", 0.9136946, 0.9136773),
        ("token.gone", 1.0, None),
        ("token.new", None, 2.0),
    ]
    assert differences(stored, stored) == []


def archived_bte_run(tmp_path, f1_shift: float = 0.0):
    """An archive of bte on one hand-made page, made by the command that ``reproduce`` runs again,
    under ``archive/exp/job.tar.xz``; ``f1_shift`` plants another token F1 in its summary."""
    data = tmp_path / "pages"
    data.mkdir(parents=True)
    (data / "a.html").write_text(PAGE)
    (data / "a.txt").write_text("word " * 40)
    run_dir = tmp_path / "original"
    overrides = ["extractor=bte", "dataset=plaintext", f"dataset.root={data}"]
    subprocess.run(
        [sys.executable, "-m", "boilerbench", "run", *overrides, f"hydra.run.dir={run_dir}"],
        check=True,
        capture_output=True,
    )
    summary = json.loads((run_dir / "summary.json").read_text())
    summary["metrics"]["token"]["f1"] += f1_shift
    (run_dir / "summary.json").write_text(json.dumps(summary))
    archive = tmp_path / "archive"
    (archive / "exp").mkdir(parents=True)
    (archive / "exp" / "job.tar.xz").write_bytes(pack(run_dir))
    return archive, summary


def test_an_archived_run_reproduces_and_a_planted_figure_does_not(tmp_path, capsys):
    archive, summary = archived_bte_run(tmp_path)
    assert main(["exp/job", "--archive", str(archive)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"exp/job: reproduces: token F1 {summary['metrics']['token']['f1']} stored")
    assert "0 figures differ" in out and "run key" not in out  # the same run: the same key
    planted, changed = archived_bte_run(tmp_path / "planted", f1_shift=-0.01)
    assert main(["exp/job", "--archive", str(planted)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("exp/job: differs:")
    assert f"token.f1: {changed['metrics']['token']['f1']} stored" in out


def test_a_job_not_in_the_archive_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["exp/missing", "--archive", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == f"error: no archived run exp/missing under {tmp_path}"
