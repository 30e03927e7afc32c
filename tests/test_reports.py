"""The reports command on a tiny experiment: two extractors on a small plaintext dataset through
a Hydra multirun, then ``python -m boilerbench.reports``; the table's values are the runs' summary.json ones."""

import json
import os
import subprocess
import sys
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from conftest import PROJECT, TWO_PAGES, write_pairs

from boilerbench.reports.build import FIGURE_FORMATS, figure_bytes, shown_folder
from boilerbench.reports.collect import collect
from boilerbench.reports.figures import pareto_front
from boilerbench.reports.tables import Table, fmt


def _python(*args, cwd=PROJECT, **env):
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(PROJECT), **env},
        timeout=600,
    )


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("experiment")
    data = write_pairs(tmp / "pages", TWO_PAGES)
    sweep = tmp / "multirun"
    done = _python(
        "run.py",
        "-m",
        "extractor=bte,cetd,all_text",
        "dataset=plaintext",
        f"dataset.root={data}",
        "report=table_cleaneval",
        f"hydra.sweep.dir={sweep}",
        f"paths.root_dir={tmp}",
        "progress=false",
    )
    assert done.returncode == 0, done.stderr
    out = tmp / "out"
    built = _python("-m", "boilerbench.reports", str(sweep), "--out", str(out))
    assert built.returncode == 0, built.stderr
    return sweep, out, built.stdout


def test_table_values_are_the_runs_summaries(experiment):
    sweep, out, _ = experiment
    summaries = {json.loads(p.read_text())["extractor"]: json.loads(p.read_text()) for p in sweep.rglob("summary.json")}
    assert sorted(summaries) == ["all_text", "bte", "cetd"]
    lines = (out / "table_cleaneval.md").read_text().splitlines()
    header = [c.strip() for c in lines[2].strip("|").split("|")]
    rows = {
        cells[0]: dict(zip(header, cells, strict=True))
        for cells in ([c.strip() for c in line.strip("|").split("|")] for line in lines[4:7])
    }
    csv = pd.read_csv(out / "table_cleaneval.csv").set_index("extractor")
    for name, summary in summaries.items():
        m = summary["metrics"]
        assert _value(rows[name]["F1"]) == fmt(m["block"]["f1"])
        assert _value(rows[name]["P"]) == fmt(m["block"]["precision"])
        assert _value(rows[name]["CleanEval"]) == fmt(m["cleaneval"]["mean"], 2)
        assert rows[name]["ms/page"] == fmt(summary["timing"]["extract_ms_per_page"], 2)
        assert rows[name]["errors"] == str(summary["n_errors"])
        # the interval: half its width in markdown, its bounds in the CSV
        lo, hi = m["block"]["f1_ci95"]
        assert rows[name]["F1"].endswith(f" ±{(hi - lo) / 2:.3f}")
        assert csv.loc[name, ["F1", "F1 ci95 lo", "F1 ci95 hi"]].tolist() == pytest.approx([m["block"]["f1"], lo, hi])
    # per column, the best cell is bold and, on two pages, the other cannot be significantly worse;
    # all_text (a bound, like oracle) is not ranked
    ranked = ["bte", "cetd"]
    for header in ("F1", "R", "token F1", "CleanEval"):
        cells = [rows[name][header] for name in ranked]
        values = [float(_value(c)) for c in cells]
        best = max(values)
        for cell, value in zip(cells, values, strict=True):
            assert cell.startswith("**") == (value == best)
            assert cell.split(" ")[0].endswith("†") == (value != best)
        assert not rows["all_text"][header].startswith("**") and "†" not in rows["all_text"][header]
        top = csv.loc[ranked, header].max()
        assert csv.loc[ranked, f"{header} best"].tolist() == (csv.loc[ranked, header] == top).tolist()
        assert csv.loc["all_text", [f"{header} best", f"{header} not worse"]].isna().all()
    # no paper reports figures on this dataset: no published columns
    assert not any(h.endswith("(pub.)") for h in header)
    assert "\\begin{tabular}" in (out / "table_cleaneval.tex").read_text()


def _value(cell: str) -> str:
    """The number of a table cell, without its marks and interval."""
    return cell.split(" ")[0].strip("*").rstrip("†")


def test_missing_runs_are_reported_not_skipped(experiment):
    _, out, stdout = experiment
    index = (out / "README.md").read_text()
    assert "table_l3s" in stdout and "missing" in stdout
    assert "| table_l3s | **missing**" in index and "boilerbench run experiment=table_l3s" in index
    # the figures drawn from table runs are built from the two tagged runs; the speed-quality
    # figure only from its own (end-to-end timings), so it is missing here
    assert (out / "fig_score_distributions.png").stat().st_size > 10_000
    assert not (out / "fig_speed_quality.png").exists() and "| fig_speed_quality | **missing**" in index


def test_figures_are_written_as_png_pdf_and_svg_the_same_bytes_twice(experiment):
    """A rebuilt figure diffs as unchanged: without the dates and random ids matplotlib stamps
    by default, two writes of the same figure are the same bytes in every format."""
    _, out, _ = experiment
    figure = plt.figure()
    figure.gca().plot([0, 1], [1, 0])
    for kind in FIGURE_FORMATS:
        assert figure_bytes(figure, kind) == figure_bytes(figure, kind), kind
    plt.close(figure)
    svg = (out / "fig_score_distributions.svg").read_text()
    assert svg.startswith("<?xml") and "<svg" in svg and "<dc:date>" not in svg
    assert (out / "fig_score_distributions.pdf").read_bytes().startswith(b"%PDF")
    assert b"CreationDate" not in (out / "fig_score_distributions.pdf").read_bytes()


def test_latest_run_of_a_setting_wins(experiment, tmp_path):
    sweep, _, _ = experiment
    # the bte run again, finished later and with another F1; a third copy finished earlier still
    original = next(p for p in sweep.rglob("summary.json") if json.loads(p.read_text())["extractor"] == "bte")
    for name, finished, f1 in (
        ("later", "2999-01-01T00:00:00+00:00", 0.123),
        ("earlier", "2000-01-01T00:00:00+00:00", 0.456),
    ):
        summary = json.loads(original.read_text())
        summary["finished_at"], summary["metrics"]["block"]["f1"] = finished, f1
        (tmp_path / name).mkdir()
        (tmp_path / name / "summary.json").write_text(json.dumps(summary))
    runs = collect([sweep, tmp_path])
    assert len(runs) == 3 and set(runs["report"]) == {"table_cleaneval"}
    bte = runs[runs["extractor"] == "bte"].iloc[0]
    assert bte["block.f1"] == 0.123 and bte["run_dir"] == str(tmp_path / "later")


def test_a_base_runs_csv_fills_the_runs_that_were_not_rerun(experiment, tmp_path):
    import shutil

    from boilerbench.reports.collect import MissingRuns, gather, pages

    sweep, out, _ = experiment
    base = pd.read_csv(out / "runs.csv")
    assert sorted(base["extractor"]) == ["all_text", "bte", "cetd"] and "block.f1" in base.columns
    # a machine that reran cetd only (later, with another F1), and no longer has the other runs
    rerun = tmp_path / "multirun"
    shutil.copytree(next(p for p in sweep.iterdir() if p.name.endswith("_cetd_plaintext")), rerun / "cetd")
    summary = json.loads((rerun / "cetd" / "summary.json").read_text())
    summary["finished_at"], summary["metrics"]["block"]["f1"] = "2999-01-01T00:00:00+00:00", 0.321
    (rerun / "cetd" / "summary.json").write_text(json.dumps(summary))
    runs = collect([rerun], base=out / "runs.csv").set_index("extractor")
    assert sorted(runs.index) == ["all_text", "bte", "cetd"]
    assert runs.loc["cetd", "block.f1"] == 0.321 and runs.loc["cetd", "run_dir"] == str(rerun / "cetd")
    bte = base.set_index("extractor").loc["bte"]
    assert runs.loc["bte", "block.f1"] == bte["block.f1"] and runs.loc["bte", "params"] == bte["params"]
    # the base's columns keep their order, new ones after them: an update's diff is its rows
    reordered = tmp_path / "reordered.csv"
    base[base.columns[::-1]].to_csv(reordered, index=False)
    assert list(collect([rerun], base=reordered).columns[: len(base.columns)]) == list(base.columns[::-1])
    # the tables come from the merged rows; the page rows of a run that is not here are missing
    gone = tmp_path / "gone"
    with pytest.raises(MissingRuns, match="gone"):
        pages(gone)
    built = _python(
        "-m", "boilerbench.reports", str(rerun), "--base", str(out / "runs.csv"), "--out", str(tmp_path / "out")
    )
    assert built.returncode == 0, built.stderr
    table = pd.read_csv(tmp_path / "out" / "table_cleaneval.csv").set_index("extractor")
    assert table.loc["cetd", "F1"] == 0.321 and table.loc["bte", "F1"] == pytest.approx(bte["block.f1"])
    # the sweeps: the base's (its folder not rebuilt) beside the rerun's; rebuilt from its own
    # folder, a sweep's row is replaced, not repeated
    sweeps = pd.read_csv(tmp_path / "out" / "sweeps.csv").set_index("sweep")
    assert sorted(sweeps.index) == sorted([str(sweep), str(rerun)])
    assert (sweeps.loc[str(sweep), "jobs"], sweeps.loc[str(rerun), "jobs"]) == (3, 1)
    _, again = gather([sweep], base=tmp_path / "out" / "runs.csv")
    assert sorted(again["sweep"]) == sorted([str(sweep), str(rerun)])
    # the rerun job's folder given again (report update, twice): its sweep's row is not repeated
    _, twice = gather([rerun / "cetd"], base=tmp_path / "out" / "runs.csv")
    assert sorted(twice["sweep"]) == sorted([str(sweep), str(rerun)])
    assert _python("-m", "boilerbench.reports", str(rerun), "--base", str(tmp_path / "none.csv")).returncode == 2


def test_a_store_whose_run_folders_are_gone_builds_its_tables_and_says_what_it_left_out(experiment, tmp_path):
    """A machine that has the store's runs.csv but not its run folders (a new clone): the tables
    build from the rows, the artefacts that read page rows are listed as missing, and the page
    rows' absence is said once. What would fail: an artefact reading pages.csv directly (a crash),
    or significance marks dropped without a word."""
    from boilerbench.reports.build import build_all

    _, out, _ = experiment
    moved = pd.read_csv(out / "runs.csv")
    moved["run_dir"] = [str(tmp_path / "elsewhere" / f"run{i}") for i in range(len(moved))]
    moved.to_csv(tmp_path / "runs.csv", index=False)
    (tmp_path / "none").mkdir()
    status = build_all([str(tmp_path / "none")], tmp_path / "out", str(tmp_path / "runs.csv"))
    assert status["page rows"].startswith("3 of 3 runs' pages.csv neither on this machine nor archived")
    assert status["table_cleaneval"] == "written" and status["table_strata"].startswith("missing: the page rows")
    assert all(v == "written" or v.startswith(("missing", "3 of 3")) for v in status.values())


def test_a_base_row_whose_folder_now_holds_another_setting_is_replaced(experiment, tmp_path):
    """A run redone in the same folder after its extractor gained a parameter has another
    setting (its params differ); its old base row must not stay beside it as a second cetd row,
    nor a base row of a deleted folder under the collected ones. What would fail: rows merged by
    setting alone."""
    import shutil

    sweep, out, _ = experiment
    rerun = tmp_path / "multirun"
    folder = next(p for p in sweep.iterdir() if p.name.endswith("_cetd_plaintext"))
    shutil.copytree(folder, rerun / "cetd")
    summary = json.loads((rerun / "cetd" / "summary.json").read_text())
    summary["config"]["extractor"]["new_parameter"] = False
    (rerun / "cetd" / "summary.json").write_text(json.dumps(summary))
    base = pd.read_csv(out / "runs.csv")
    base.loc[base["extractor"] == "cetd", "run_dir"] = str(rerun / "cetd")
    base.to_csv(tmp_path / "runs.csv", index=False)
    runs = collect([rerun], base=tmp_path / "runs.csv")
    assert sorted(runs["extractor"]) == ["all_text", "bte", "cetd"]
    assert "new_parameter" in runs.set_index("extractor").loc["cetd", "params"]
    # a base row of a folder under the collected ones that no longer holds a run is gone too
    base.loc[base["extractor"] == "bte", "run_dir"] = str(rerun / "deleted")
    base.to_csv(tmp_path / "runs.csv", index=False)
    assert sorted(collect([rerun], base=tmp_path / "runs.csv")["extractor"]) == ["all_text", "cetd"]


def test_members_given_by_name_are_the_same_value_as_the_same_members_nested():
    from boilerbench.reports.collect import same_value

    nested = {"trafilatura": {"_target_": "T"}, "resiliparse": {"_target_": "R"}}
    assert same_value(["trafilatura", "resiliparse"], nested) and same_value(0.5, 0.5)
    assert not same_value(["resiliparse", "trafilatura"], nested) and not same_value(["trafilatura"], nested)
    assert not same_value("English", "auto")


def test_a_collected_run_supersedes_older_rows_of_its_setting_and_not_other_settings(experiment, tmp_path):
    """Rows of the same report, extractor and dataset: one rebuilt from an old table (no code
    version, split or parameters, another protocol name), one written before cetd gained a
    parameter (a subset of today's), both replaced by today's run; one with a parameter of another
    value stays, as another setting. What would fail: old rows left beside the rerun (the stale
    check then flags rows no table shows), or a different setting dropped."""
    from boilerbench.reports.collect import superseded

    sweep, out, _ = experiment
    found = collect([sweep])
    cetd = found.set_index("extractor", drop=False).loc["cetd"]
    params = json.loads(cetd["params"])
    assert params and cetd["code_version"]
    fewer = json.dumps({k: v for k, v in list(params.items())[1:]})
    other = json.dumps({**params, next(iter(params)): "another value"})
    rows = pd.DataFrame(
        [
            {**cetd.to_dict(), "split": "", "params": "", "code_version": "", "protocol": "in_domain_legacy"},
            {**cetd.to_dict(), "params": fewer, "code_version": "v0"},
            {**cetd.to_dict(), "params": other, "code_version": "v0"},
            {**cetd.to_dict(), "params": fewer, "code_version": "v0", "protocol": "mixture"},
            {**cetd.to_dict(), "split": "another", "code_version": ""},
            {**cetd.to_dict(), "extractor": "scedd", "code_version": ""},
            {**cetd.to_dict(), "extractor": "html_to_text", "code_version": ""},
        ]
    )
    assert superseded(rows, found).tolist() == [True, True, False, False, False, False, False]
    # a row under a former name (html_to_text, renamed inscriptis) is one of the new name's
    renamed = found.assign(extractor=found["extractor"].replace({"cetd": "inscriptis"}))
    assert superseded(rows, renamed).tolist() == [False] * 6 + [True]
    rows = rows.iloc[:6]
    rows.assign(run_dir="an old table").to_csv(tmp_path / "runs.csv", index=False)
    merged = collect([sweep], base=tmp_path / "runs.csv")
    assert sorted(merged["extractor"]) == ["all_text", "bte", "cetd", "cetd", "cetd", "cetd", "scedd"]


def test_a_row_without_code_version_trained_on_other_data_is_replaced_unless_the_experiment_sweeps_training(
    experiment,
):
    """table_headline's stack was once trained on an English mixture and is now trained on the
    multilingual one: its old row (no code version) is replaced by today's run, as no experiment
    would regenerate it. table_generalization sweeps the training source: there a row trained on
    one source is never replaced by the run on another. What would fail: a retired setting left
    stale in the store for ever, or one training source's row dropped for another's run."""
    from boilerbench.reports.collect import superseded, sweeps_training

    assert sweeps_training("table_generalization")
    assert not sweeps_training("table_headline") and not sweeps_training("table_cleaneval")
    sweep, _, _ = experiment
    found = collect([sweep])
    cetd = found.set_index("extractor", drop=False).loc["cetd"].to_dict()
    old = {**cetd, "code_version": "", "trained_on": "mix(cleaneval,dragnet,wcxb)/balanced"}
    versioned = {**old, "code_version": "v0"}
    for report, replaced in (("table_headline", True), ("table_generalization", False)):
        runs = found.assign(report=report, trained_on="mix(cleaneval,dragnet,wcxb,daniel)/balanced_languages")
        rows = pd.DataFrame([{**old, "report": report}, {**versioned, "report": report}])
        assert superseded(rows, runs).tolist() == [replaced, False]


def test_rows_of_an_earlier_version_read_with_todays_names(tmp_path):
    from boilerbench.reports.collect import read_runs

    pd.DataFrame(
        {
            "report": ["table_generalization"] * 3,
            "extractor": ["crf"] * 3,
            "dataset": ["wcxb"] * 3,
            "protocol": ["cross", "cross", "test"],
            "trained_on": ["l3s_gn1/l3s_gn1", "mix(cleaneval,wcxb)/balanced", ""],
        }
    ).to_csv(tmp_path / "runs.csv", index=False)
    rows = read_runs(tmp_path / "runs.csv")
    assert list(rows["trained_on"]) == ["l3s_gn1/all", "mix(cleaneval,wcxb)/balanced", ""]
    assert list(rows["protocol"]) == ["cross_dataset", "mixture", "in_domain"]


def test_markdown_and_latex_rendering():
    import pandas as pd

    table = Table("t", "A_title", pd.DataFrame({"extractor": ["web2text_unary"], "F1": ["0.870 +- 0.010"]}), "note 5%")
    assert table.markdown().splitlines()[2:5] == [
        "| extractor | F1 |",
        "|---|---|",
        "| web2text_unary | 0.870 +- 0.010 |",
    ]
    tex = table.latex()
    assert "web2text\\_unary & 0.870 $\\pm$ 0.010 \\\\" in tex and "note 5\\%" in tex


def test_unknown_run_folder_is_one_clear_error(tmp_path):
    done = _python("-m", "boilerbench.reports", str(tmp_path / "nope"))
    assert done.returncode == 2 and done.stderr.startswith("error: no such run folder")


def test_published_figures_sit_beside_the_measured_ones():
    import pandas as pd

    from boilerbench.reports.tables import results_table

    runs = pd.DataFrame(
        [
            {"extractor": "bte", "dataset": "cleaneval", "split": "cleaneval", "block.f1": 0.81, "ms_per_page": 1.3},
            {"extractor": "cetd", "dataset": "cleaneval", "split": "cleaneval", "block.f1": 0.815, "ms_per_page": 2.3},
        ]
    )
    table = results_table("t", "T", runs, {"extractor": "extractor", "split": "split"}, with_published=True)
    rows = table.frame.set_index("extractor")
    # papers/003: BTE 0.75 / 0.76 / 0.84 / 0.80; nothing published for CETD on CleanEval
    assert rows.loc["bte", ["acc (pub.)", "F1 (pub.)"]].tolist() == ["0.750", "0.800"]
    assert rows.loc["cetd", "F1 (pub.)"] == "–" and rows.loc["cetd", "F1"] == "0.815"
    assert list(table.frame["extractor"]) == ["cetd", "bte"]  # best F1 first
    assert "ROUGE-LSum F1 (pub.)" not in table.frame.columns  # none published for these two


def test_competition_scores_sit_beside_the_cleaneval_score():
    import pandas as pd

    from boilerbench.reports.tables import results_table

    runs = pd.DataFrame(
        [
            {
                "extractor": "kimatu",
                "dataset": "cleaneval",
                "split": "cleaneval",
                "block.f1": 0.8,
                "cleaneval.mean": 86.214,
            }
        ]
    )
    table = results_table("t", "T", runs, {"extractor": "extractor", "split": "split"}, with_published=True)
    # papers/002: Kimatu scored 74.3 in the 2007 competition
    assert table.frame.loc[0, ["CleanEval", "CleanEval (pub.)"]].tolist() == ["86.21", "74.30"]


def test_tables_show_the_error_count():
    import pandas as pd

    from boilerbench.reports.tables import results_table

    runs = pd.DataFrame(
        [
            {"extractor": "bte", "dataset": "cleaneval", "split": "cleaneval", "block.f1": 0.8, "n_errors": 0},
            {"extractor": "boom", "dataset": "cleaneval", "split": "cleaneval", "block.f1": 0.1, "n_errors": 12},
        ]
    )
    table = results_table("t", "T", runs, {"extractor": "extractor"}, with_published=False)
    assert dict(zip(table.frame["extractor"], table.frame["errors"], strict=True)) == {"bte": "0", "boom": "12"}


def test_pareto_front_keeps_the_points_nothing_beats():
    ms = np.array([10.0, 5.0, 20.0, 5.0, 40.0])
    f1 = np.array([0.90, 0.80, 0.85, 0.70, 0.95])
    # 5 ms / 0.80 beats 5 ms / 0.70; 20 ms / 0.85 is beaten by 10 ms / 0.90
    assert pareto_front(ms, f1).tolist() == [1, 0, 4]


def test_the_oracle_is_drawn_but_kept_off_the_speed_quality_front():
    """What would fail: the front ending at the oracle (fastest and best: it reads the gold), so
    that every real extractor beyond it dropped off the front."""
    from boilerbench.reports.figures import speed_quality

    runs = pd.DataFrame(
        [
            {"extractor": name, "dataset": dataset, "token.f1": f1, "ms_per_page": ms}
            for name, f1, ms in [("oracle", 0.99, 1.0), ("bte", 0.80, 5.0), ("stack", 0.93, 40.0), ("slow", 0.7, 90)]
            for dataset in ("cleaneval", "dragnet")
        ]
    )
    ax = speed_quality(runs).axes[0]
    front = ax.lines[0]
    assert front.get_xdata().tolist() == [5.0, 40.0] and front.get_ydata().tolist() == [0.80, 0.93]
    hollow = [c for c in ax.collections if c.get_label() == "bounds (not ranked)"][0]
    assert hollow.get_offsets().tolist() == [[1.0, 0.99]]


def test_labels_of_close_points_take_different_offsets():
    """trafilatura and readability sit almost on one point: their labels must not be drawn at the
    same offset (over each other), while a point alone keeps the first offset. What would fail:
    every label at one offset, or the overlap test never finding a clash."""
    from boilerbench.reports.figures import LABEL_OFFSETS, speed_quality

    runs = pd.DataFrame(
        [
            {"extractor": name, "dataset": dataset, "token.f1": f1, "ms_per_page": ms}
            for name, f1, ms in [("trafilatura", 0.900, 25.0), ("readability", 0.901, 25.5), ("bte", 0.6, 5.0)]
            for dataset in ("cleaneval", "dragnet")
        ]
    )
    ax = speed_quality(runs).axes[0]
    offsets = {a.get_text(): tuple(a.xyann) for a in ax.texts}
    assert offsets["trafilatura"] != offsets["readability"]
    assert offsets["bte"] == LABEL_OFFSETS[0] and offsets["readability"] == LABEL_OFFSETS[0]


def test_the_speed_quality_figure_reads_only_its_own_end_to_end_runs():
    """What would fail: the figure's own runs of the headline stacks dropped as trained elsewhere
    (they are trained on the mixture), an older run of the same point kept, or table runs
    (members' votes and features read from the cache, so their milliseconds are not end to end)
    drawn beside them."""
    from boilerbench.reports.artefacts import _speed_quality_runs

    def run(report, extractor, protocol, ms, finished):
        return {
            "report": report,
            "extractor": extractor,
            "dataset": "dragnet",
            "split": "dragnet",
            "protocol": protocol,
            "ms_per_page": ms,
            "finished_at": finished,
        }

    runs = pd.DataFrame(
        [
            run("table_datasets", "stack", "in_domain", 20.0, "2026-11-02"),
            run("table_datasets", "bte", "in_domain", 5.0, "2026-11-01"),
            run("fig_speed_quality", "stack", "mixture", 150.0, "2026-11-01"),
            run("fig_speed_quality", "stack_fast", "mixture", 50.0, "2026-11-01"),
            run("fig_speed_quality", "stack", "mixture", 140.0, "2026-11-04"),
            run("table_headline", "trafilatura", "in_domain", 30.0, "2026-11-03"),
        ]
    )
    points = _speed_quality_runs(runs).set_index("extractor")["ms_per_page"].to_dict()
    assert points == {"stack": 140.0, "stack_fast": 50.0}


def test_every_row_says_which_run_and_code_it_came_from(experiment):
    sweep, out, _ = experiment
    summaries = {json.loads(p.read_text())["extractor"]: json.loads(p.read_text()) for p in sweep.rglob("summary.json")}
    runs = pd.read_csv(out / "runs.csv").set_index("extractor")
    table = pd.read_csv(out / "table_cleaneval.csv").set_index("extractor")
    for name, summary in summaries.items():
        assert runs.loc[name, "run_key"] == table.loc[name, "run_key"] == summary["run_key"]
        assert runs.loc[name, "code_version"] == table.loc[name, "code_version"] == summary["code_version"]
        # what the job cost, from getrusage: a run takes some CPU and more than the interpreter's memory
        assert runs.loc[name, "cpu_s"] == summary["resources"]["cpu_s"] > 0
        assert runs.loc[name, "peak_rss_mb"] == summary["resources"]["peak_rss_mb"] > 50
        assert runs.loc[name, "wall_s"] == summary["timing"]["wall_s"]
    # the budget table sums the runs of an experiment; the total row all runs
    budget = pd.read_csv(out / "table_budget.csv").set_index("experiment")
    cpu = sum(s["resources"]["cpu_s"] for s in summaries.values())
    assert budget.loc["table_cleaneval", "runs"] == budget.loc["total", "runs"] == 3
    assert budget.loc["table_cleaneval", "CPU h"] == pytest.approx(cpu / 3600)
    assert budget.loc["total", "peak RSS MiB"] == max(s["resources"]["peak_rss_mb"] for s in summaries.values())
    # the sweep ran its three jobs one after another (Hydra's basic launcher): its wall time spans them all
    sweeps = pd.read_csv(out / "sweeps.csv")
    assert list(sweeps["sweep"]) == [str(sweep)] and list(sweeps["launcher"]) == ["basic"]
    assert sweeps.loc[0, "jobs"] == 3 and sweeps.loc[0, "cpu_s"] == pytest.approx(cpu)
    # (finished_at is to the second, so each end may read up to a second early)
    assert sweeps.loc[0, "wall_s"] >= sum(s["timing"]["wall_s"] for s in summaries.values()) - 2
    assert budget.loc["table_cleaneval", "wall h (basic)"] == pytest.approx(sweeps.loc[0, "wall_s"] / 3600)


def _sweep_run(sweep, launcher, report, finished, wall_s, cpu_s=1.0):
    return {
        "sweep": sweep,
        "launcher": launcher,
        "report": report,
        "finished_at": finished,
        "wall_s": wall_s,
        "cpu_s": cpu_s,
        "peak_rss_mb": 100.0,
        "fit_s": 0.0,
    }


def test_an_experiment_run_two_ways_shows_each_launchers_wall_time():
    from boilerbench.reports.budget import table_budget
    from boilerbench.reports.collect import sweep_rows

    runs = pd.DataFrame(
        [
            # two jobs side by side: 10:00:00-10:01:40 and 10:00:30-10:02:00, so 120 s, not 160 s
            _sweep_run("/m/local", "joblib, 2 jobs", "table_x", "2026-11-27T10:01:40+00:00", 100.0),
            _sweep_run("/m/local", "joblib, 2 jobs", "table_x", "2026-11-27T10:02:00+00:00", 90.0),
            # the same experiment on a cluster: one job from 11:00:00 to 11:01:00
            _sweep_run("/m/cluster", "dask, 2 workers", "table_x", "2026-11-27T11:01:00+00:00", 60.0),
            # another experiment's sweep in two sittings (12:00:00-12:00:36, then 14:00:00-14:00:10:
            # 46 s, not two hours), and a run that never recorded when it finished
            _sweep_run("/m/other", "joblib, 2 jobs", "table_y", "2026-11-27T12:00:36+00:00", 36.0),
            _sweep_run("/m/other", "joblib, 2 jobs", "table_y", "2026-11-27T14:00:10+00:00", 10.0),
            _sweep_run("/m/other", "joblib, 2 jobs", "table_y", "", 99.0),
        ]
    )
    sweeps = sweep_rows(runs).set_index("sweep")
    assert sweeps["wall_s"].to_dict() == {"/m/cluster": 60.0, "/m/local": 120.0, "/m/other": 46.0}
    assert sweeps.loc["/m/local", "started_at"] == "2026-11-27T10:00:00+00:00"
    assert sweeps.loc["/m/other", "finished_at"] == "2026-11-27T14:00:10+00:00"
    assert sweeps["jobs"].to_dict() == {"/m/cluster": 1, "/m/local": 2, "/m/other": 2}
    budget = table_budget(runs, sweeps.reset_index()).numbers.set_index("experiment")
    assert budget.loc["table_x", "wall h (joblib, 2 jobs)"] == pytest.approx(120 / 3600)
    assert budget.loc["table_x", "wall h (dask, 2 workers)"] == pytest.approx(60 / 3600)
    assert np.isnan(budget.loc["table_y", "wall h (dask, 2 workers)"])
    assert budget.loc["total", "wall h (joblib, 2 jobs)"] == pytest.approx(166 / 3600)


def test_the_launcher_is_read_from_the_runs_hydra_config(tmp_path):
    from boilerbench.reports.collect import launched

    def job(name, hydra):
        folder = tmp_path / name / "0_job"
        (folder / ".hydra").mkdir(parents=True)
        (folder / ".hydra" / "hydra.yaml").write_text(json.dumps({"hydra": hydra}))
        return folder

    joblib = {"_target_": "hydra_plugins.hydra_joblib_launcher.joblib_launcher.JoblibLauncher", "n_jobs": "${n_jobs}"}
    dask = {"_target_": "hydra_plugins.boilerbench_dask_launcher.dask_launcher.DaskLauncher", "n_workers": 2}
    remote = {**dask, "address": "tcp://10.0.0.1:8786"}
    assert launched(job("a", {"mode": "MULTIRUN", "launcher": joblib}), {"n_jobs": 4}) == (
        str(tmp_path / "a"),
        "joblib, 4 jobs",
    )
    assert launched(job("b", {"mode": "MULTIRUN", "launcher": dask}), {})[1] == "dask, 2 workers"
    assert launched(job("c", {"mode": "MULTIRUN", "launcher": remote}), {})[1] == "dask at tcp://10.0.0.1:8786"
    single = job("d", {"mode": "RUN", "launcher": joblib})
    assert launched(single, {}) == (str(single), "single")
    assert launched(tmp_path / "nowhere", {}) == (str(tmp_path / "nowhere"), "")


def test_a_matrix_row_names_every_run_behind_it():
    from boilerbench.reports.provenance import with_provenance

    runs = pd.DataFrame(
        {
            "extractor": ["bte", "bte", "cetd", "stack"],
            "dataset": ["cleaneval", "wcxb", "cleaneval", "cleaneval"],
            "split": ["cleaneval", "test", "cleaneval", "cleaneval"],
            "trained_on": ["", "", "", ""],
            "finished_at": ["1", "2", "3", "4"],
            "run_key": ["k1", "k2", "k3", "k4"],
            "code_version": ["v1", "v1", "v3", ""],
        }
    )
    # an extractor x dataset matrix row gathers its runs; a headline row the runs of its extractor columns
    matrix = with_provenance(pd.DataFrame({"extractor": ["bte", "cetd"], "cleaneval": [0.5, 0.6]}), runs)
    assert list(matrix["run_key"]) == ["k1 k2", "k3"] and list(matrix["code_version"]) == ["v1", "v3"]
    headline = with_provenance(pd.DataFrame({"dataset": ["wcxb: forum"], "bte": [0.1], "cetd": [0.2]}), runs)
    assert list(headline["run_key"]) == ["k2"]
    budget = with_provenance(pd.DataFrame({"experiment": ["total"]}), runs)
    assert list(budget["run_key"]) == [""]


def test_the_budget_of_runs_that_recorded_no_resources_is_missing():
    from boilerbench.reports.budget import table_budget
    from boilerbench.reports.figures import MissingRuns

    # rows of an older runs.csv: no cpu_s column at all, or one with no value
    for runs in (pd.DataFrame({"report": ["table_x"]}), pd.DataFrame({"report": ["table_x"], "cpu_s": [None]})):
        with pytest.raises(MissingRuns, match="recorded their CPU time"):
            table_budget(runs, pd.DataFrame(columns=["sweep", "report", "launcher", "wall_s"]))


def test_the_index_names_run_folders_relative_to_the_working_directory_or_by_name(tmp_path, monkeypatch):
    (tmp_path / "repo" / "multirun" / "table_x").mkdir(parents=True)
    (tmp_path / "elsewhere" / "td_cheap").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "repo")
    assert shown_folder("multirun/table_x") == "multirun/table_x"
    assert shown_folder(str(tmp_path / "repo" / "multirun" / "table_x")) == "multirun/table_x"
    assert shown_folder(str(tmp_path / "elsewhere" / "td_cheap")) == "td_cheap"
    assert shown_folder("../elsewhere/td_cheap") == "td_cheap"


def test_collected_rows_are_one_consolidated_frame(tmp_path):
    # a store has a column per figure and language (1,300 of them): the text columns, filled one by
    # one, used to leave a block each, and every report's assign warned that the frame was fragmented
    from boilerbench.reports.collect import TEXT

    columns = {c: ["x"] for c in TEXT} | {f"lang.l{k}.token.f1": [0.5] for k in range(200)}
    base = tmp_path / "runs.csv"
    pd.DataFrame(columns | {"extractor": ["bte"], "finished_at": ["2026-01-01"]}).to_csv(base, index=False)
    runs = collect([], base=base)
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.PerformanceWarning)
        assert runs.assign(extra=1)["lang.l7.token.f1"].tolist() == [0.5]


def test_a_cross_validated_run_on_other_training_data_keeps_the_row_of_the_shipped_one(experiment, tmp_path):
    """Two cross-validated runs of one setting that differ only in their folds' training data
    (``cv.train_on``: the mixture, the mixture with DANIEL twice) are two rows: neither supersedes
    nor deduplicates the other. What would fail: the shipped stack's CV row dropped from the store
    when the weighted one is collected (it shares every other key column, trained_on being blank)."""
    from boilerbench.reports.collect import superseded

    sweep, _, _ = experiment
    found = collect([sweep])
    cetd = found.set_index("extractor", drop=False).loc["cetd"].to_dict()
    shipped = {**cetd, "cv.train_on": "cleaneval,daniel:all", "run_dir": "shipped"}
    weighted = found.assign(**{"cv.train_on": "cleaneval,daniel:all,daniel:all"})
    assert superseded(pd.DataFrame([shipped]), weighted).tolist() == [
        False,
    ]
    assert superseded(
        pd.DataFrame([{**shipped, "cv.train_on": "cleaneval,daniel:all,daniel:all"}]), weighted
    ).tolist() == [True]
    pd.DataFrame([shipped]).to_csv(tmp_path / "runs.csv", index=False)
    merged = collect([sweep], base=tmp_path / "runs.csv")
    assert sorted(merged.loc[merged["extractor"] == "cetd", "run_dir"].str.endswith("shipped")) == [False, True]


def test_an_update_takes_the_rerun_jobs_row_and_what_it_changes_and_keeps_what_cannot_be_rebuilt_here(
    experiment, tmp_path, capsys
):
    """A store whose run folders are gone (a fresh clone), and one of its jobs rerun with another
    F1: the update copies the new row and the table it changes, keeps the artefacts that read page
    rows (no build here can make them) and the index, and archives the job. What would fail: the
    store rebuilt wholesale (table_strata lost, the index listing it as missing), other rows
    dropped, or the rerun job left unarchived."""
    import shutil

    from boilerbench.reports.archive import SUFFIX, archived_summary
    from boilerbench.reports.update import main as update_main

    sweep, out, _ = experiment
    store = tmp_path / "results"
    shutil.copytree(out, store)
    rows = pd.read_csv(store / "runs.csv")
    rows["run_dir"] = [str(tmp_path / "elsewhere" / f"run{i}") for i in range(len(rows))]
    rows.to_csv(store / "runs.csv", index=False)
    kept = {name: (store / name).read_bytes() for name in ("table_strata.md", "fig_strata.png", "README.md")}
    job = tmp_path / "multirun" / "exp" / "1_cetd_plaintext"
    shutil.copytree(next(p for p in sweep.iterdir() if p.name.endswith("_cetd_plaintext")), job)
    summary = json.loads((job / "summary.json").read_text())
    summary["finished_at"], summary["metrics"]["block"]["f1"] = "2999-01-01T00:00:00+00:00", 0.321
    (job / "summary.json").write_text(json.dumps(summary))

    assert update_main([str(job), "--store", str(store)]) == 0
    printed = capsys.readouterr().out
    copied = printed.splitlines()[0].removeprefix(f"updated in {store}: ").split(", ")
    assert {"runs.csv", "sweeps.csv", "table_cleaneval.md", "table_cleaneval.csv"} <= set(copied)
    assert not {"README.md", "table_strata.md", "table_datasets.md"} & set(copied)  # kept, or unchanged by cetd
    assert all((store / name).read_bytes() == data for name, data in kept.items())
    after = pd.read_csv(store / "runs.csv").set_index("extractor")
    assert sorted(after.index) == ["all_text", "bte", "cetd"]
    assert after.loc["cetd", "block.f1"] == 0.321 and after.loc["cetd", "run_dir"] == str(job)
    assert after.loc["bte", "block.f1"] == rows.set_index("extractor").loc["bte", "block.f1"]
    assert pd.read_csv(store / "table_cleaneval.csv").set_index("extractor").loc["cetd", "F1"] == 0.321
    packed = store / "archive" / "exp" / f"1_cetd_plaintext{SUFFIX}"
    assert archived_summary(packed)["metrics"]["block"]["f1"] == 0.321
    # the other rows have no run here: listed, not an error; a job that is not a run folder is
    assert "2 rows without their run" in printed
    assert update_main([str(tmp_path / "nowhere"), "--store", str(store)]) == 2


def test_an_artefact_new_to_the_store_lands_with_its_index_row_and_the_kept_rows_stay(tmp_path):
    """An artefact whose code landed since the store was built is copied though both builds make
    it alike, and its index row is put in the built order; so is one whose every run is readable
    here and whose stored files an earlier builder wrote; an artefact no build here makes keeps
    its stored row. What would fail: a new table or a builder's fix never reaching the store, or
    the index rebuilt with every page-reading artefact listed as missing."""
    from boilerbench.reports.update import changed_files, merged_index

    before, after, store = (tmp_path / n for n in ("before", "after", "store"))
    for folder in (before, after, store):
        folder.mkdir()
    for folder, files in ((before, "abc"), (after, "abc"), (store, "ab")):
        for name in files:
            (folder / f"table_{name}.md").write_text(name)
    (after / "table_a.md").write_text("a, changed")
    (store / "table_b.md").write_text("b, by an earlier builder")
    assert changed_files(before, after) == ["table_a.md"]
    assert changed_files(before, after, store) == ["table_a.md", "table_c.md"]
    # an artefact whose runs are all readable here is rebuilt whole: its builder's change lands
    assert changed_files(before, after, store, frozenset({"table_b"})) == ["table_a.md", "table_b.md", "table_c.md"]

    def index(*rows):
        table = ["| artefact | files | runs | regenerate |", "|---|---|---|---|", *rows]
        return "\n".join(["# boilerbench reports", "", *table, "", "end", ""])

    stored = index("| table_a | a | 1 | x |", "| table_s | s | 9 | x |", "| table_b | b | 2 | x |")
    built = index(
        "| table_a | a | 5 | x |",
        "| table_c | c | 3 | x |",
        "| table_s | **missing**: no page rows | 0 | x |",
        "| table_b | b | 7 | x |",
        "| table_m | **missing**: no runs | 0 | x |",
    )
    assert merged_index(stored, built, ["table_a.md", "table_c.md", "runs.csv"]) == index(
        "| table_a | a | 5 | x |", "| table_c | c | 3 | x |", "| table_s | s | 9 | x |", "| table_b | b | 2 | x |"
    )


def test_an_artefact_that_reads_some_extractors_is_readable_when_their_runs_are(tmp_path):
    """table_arbiter reads five extractors' runs of fig_speed_quality: it is rebuilt whole here
    when those runs' pages are here, though another extractor's run of the same experiment is not;
    the figure, which reads every run, is not. What would fail: the table's builder change never
    reaching the store because of a run it does not read, or a table rebuilt without a run it does."""
    from boilerbench.reports.artefacts import ARBITER, ARBITER_REFERENCES
    from boilerbench.reports.update import readable_artefacts

    rows = []
    for i, extractor in enumerate((ARBITER, *ARBITER_REFERENCES, "bte")):
        folder = tmp_path / f"{i}_{extractor}_wcxb"
        folder.mkdir()
        (folder / "summary.json").write_text(json.dumps({"run_key": f"k{i}"}))
        if extractor != "bte":
            (folder / "pages.csv").write_text("page_id,token_f1\n1,0.5\n")
        rows.append({"report": "fig_speed_quality", "extractor": extractor, "run_dir": str(folder), "run_key": f"k{i}"})
    runs = pd.DataFrame(rows)
    readable = readable_artefacts(runs)
    assert "table_arbiter" in readable and "fig_speed_quality" not in readable
    (tmp_path / "0_arbiter_wcxb" / "pages.csv").unlink()
    assert "table_arbiter" not in readable_artefacts(runs)
