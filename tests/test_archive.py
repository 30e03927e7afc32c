"""The run archive (:mod:`boilerbench.reports.archive`): a run folder packed and written back
byte for byte (less the machine's quick key), the archive following the store's rows, a restored
run kept by the runner's own reuse check, and the committed archive agreeing with the store."""

from __future__ import annotations

import io
import json
import math
import tarfile

import pandas as pd
import pytest
from conftest import PROJECT, write_pairs
from hydra import compose, initialize_config_dir

from boilerbench.configs import CONF_DIR
from boilerbench.experiments import run
from boilerbench.experiments.results import RunFileError, previous_run
from boilerbench.reports.__main__ import STORE, main
from boilerbench.reports.archive import (
    ARCHIVE_DIR,
    SUFFIX,
    archive_store,
    archived_run_dir,
    archived_runs,
    archived_summary,
    contents,
    pack,
    restore,
    unpack,
)
from boilerbench.reports.artefacts import ARTEFACTS
from boilerbench.reports.build import build_all
from boilerbench.reports.collect import MissingRuns, pages, read_runs, run_pages
from boilerbench.reports.update import readable_artefacts


def _folder(path, key, extra="x"):
    """A run folder as the runner leaves it: summary, pages, Hydra's files and a log."""
    path.mkdir(parents=True)
    (path / "summary.json").write_text(json.dumps({"run_key": key, "quick_key": "files:abc", "n_pages": 1}))
    (path / "pages.csv").write_text(f"page_id,token_f1\n0001,0.5\n0002,{extra}\n")
    (path / ".hydra").mkdir()
    (path / ".hydra" / "hydra.yaml").write_text("hydra:\n  mode: MULTIRUN\n")
    (path / "run.log").write_text("a log\n")
    return path


def _tar(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:xz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_a_packed_run_comes_back_file_for_file_without_its_quick_key(tmp_path):
    source = _folder(tmp_path / "a" / "0_bte_x", "k1")
    data = pack(source)
    assert pack(source) == data  # same files, same bytes: git sees no change
    unpack(data, tmp_path / "b")
    back = tmp_path / "b"
    assert (back / "pages.csv").read_text() == (source / "pages.csv").read_text()
    assert (back / ".hydra" / "hydra.yaml").read_text() == "hydra:\n  mode: MULTIRUN\n"
    assert json.loads((back / "summary.json").read_text()) == {"run_key": "k1", "n_pages": 1}
    assert not (back / "run.log").exists()


def test_an_archive_is_read_by_name_only_and_must_hold_a_run(tmp_path):
    evil = _tar({"summary.json": b"{}", "pages.csv": b"page_id\n", "../outside.csv": b"x", "run.log": b"y"})
    assert set(contents(evil)) == {"summary.json", "pages.csv"}
    unpack(evil, tmp_path / "run")
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["pages.csv", "summary.json"]
    with pytest.raises(RunFileError, match="no pages.csv"):
        contents(_tar({"summary.json": b"{}"}))
    with pytest.raises(RunFileError, match="not a run archive"):
        contents(b"not xz at all")
    with pytest.raises(RunFileError, match="not a complete run"):
        pack(tmp_path / "nothing")


def test_the_archive_follows_the_store(tmp_path):
    root, archive = tmp_path / "multirun", tmp_path / "archive"
    _folder(root / "exp" / "0_a_x", "ka")
    (archive / "old").mkdir(parents=True)
    (archive / "old" / f"3_b_y{SUFFIX}").write_bytes(pack(_folder(tmp_path / "gone", "kb")))
    (archive / "old" / f"9_c_z{SUFFIX}").write_bytes(pack(_folder(tmp_path / "orphan", "kc")))
    rows = pd.DataFrame({"run_key": ["ka", "kb", "kd"], "run_dir": ["/m/exp/0_a_x", "/m/old/3_b_y", "/m/exp/5_d"]})
    report = archive_store(rows, [root], archive)
    assert report.written == ["exp/0_a_x"]
    assert report.unchanged == ["old/3_b_y"]  # its run is not here any more: its archive stays
    assert report.removed == ["old/9_c_z"]  # no row names kc
    assert report.missing == ["kd /m/exp/5_d"]
    assert set(archived_runs(archive)) == {"ka", "kb"}
    # the runner kept the job and Hydra rewrote its files: the same run, the archive unchanged
    (root / "exp" / "0_a_x" / ".hydra" / "hydra.yaml").write_text("hydra:\n  mode: RUN\n")
    again = archive_store(rows.iloc[:2], [root], archive)
    assert (again.written, again.removed, again.missing) == ([], [], [])
    files = contents((archive / "exp" / f"0_a_x{SUFFIX}").read_bytes())
    assert files[".hydra/hydra.yaml"] == b"hydra:\n  mode: MULTIRUN\n"
    # the experiment renumbered its jobs: the archive moves to where the run now is
    (root / "exp" / "0_a_x").rename(root / "exp" / "1_a_x")
    moved = archive_store(rows.iloc[:2], [root], archive)
    assert (moved.written, moved.removed) == (["exp/1_a_x"], ["exp/0_a_x"])


def test_restore_writes_only_folders_without_their_own_run(tmp_path, capsys):
    archive, root = tmp_path / "archive", tmp_path / "multirun"
    for name, key in (("exp/0_a_x", "ka"), ("exp/1_b_x", "kb")):
        (archive / name).parent.mkdir(parents=True, exist_ok=True)
        (archive / f"{name}{SUFFIX}").write_bytes(pack(_folder(tmp_path / key, key)))
    _folder(root / "exp" / "1_b_x", "local", extra="y")
    (archive / "exp" / f"2_c_x{SUFFIX}").write_bytes(b"truncated")
    assert restore(archive, root) == (["exp/0_a_x"], ["exp/1_b_x", "exp/2_c_x"])
    assert not (root / "exp" / "2_c_x").exists()  # a damaged archive leaves its job to rerun
    assert json.loads((root / "exp" / "0_a_x" / "summary.json").read_text())["run_key"] == "ka"
    assert json.loads((root / "exp" / "1_b_x" / "summary.json").read_text())["run_key"] == "local"
    assert "2_c_x.tar.xz: not a run archive" in capsys.readouterr().err


def test_a_run_whose_folder_is_gone_is_read_from_its_archive(tmp_path):
    """The report reads a run's page rows from the archive where its folder is not on this machine
    (a fresh clone; a store row whose run_dir is another machine's): by the absolute folder the run
    was written to, else by its ``<experiment>/<job>`` where one archive alone ends so. What would
    fail: the report's MissingRuns on a clone, or another run's rows under the same job name."""
    archive = tmp_path / "archive"
    for name, written_to, extra in (
        ("exp/0_a_x", "/m1/exp/0_a_x", "1"),
        ("exp/1_b_x", "/m1/exp/1_b_x", "2"),
        ("old/1_b_x", "/m2/exp/1_b_x", "3"),
    ):
        folder = _folder(tmp_path / "folders" / name, name, extra)
        summary = json.loads((folder / "summary.json").read_text())
        (folder / "summary.json").write_text(json.dumps({**summary, "output_dir": written_to}))
        (archive / name).parent.mkdir(parents=True, exist_ok=True)
        (archive / f"{name}{SUFFIX}").write_bytes(pack(folder))

    def second_page(run_dir):
        found = archived_run_dir(run_dir, archive)
        return None if found is None else pd.read_csv(found / "pages.csv", dtype=str)["token_f1"].iloc[1]

    assert second_page("multirun/exp/0_a_x") == "1"  # the store's relative run_dir, on any machine
    assert second_page("/m2/exp/1_b_x") == "3"  # the folder it was written to
    assert second_page("multirun/exp/1_b_x") is None  # two archives end so: neither is taken
    assert second_page("multirun/exp/9_c_x") is None


def test_a_folder_that_holds_another_run_than_the_row_is_not_read_for_the_rows_pages(tmp_path, monkeypatch):
    """A store row's page rows come from its own run (its run key): its folder where that holds
    it, else its archive, though the folder holds another run of the job (rerun on a branch, a
    sweep not yet in the store). What would fail: a table built from the row's figures with
    another run's pages (its significance marks, its per-site points)."""
    monkeypatch.chdir(tmp_path)
    ARCHIVE_DIR.mkdir(parents=True)
    (ARCHIVE_DIR / "exp").mkdir()
    (ARCHIVE_DIR / f"exp/0_a_x{SUFFIX}").write_bytes(pack(_folder(tmp_path / "packed" / "exp" / "0_a_x", "k1", "1")))
    folder = _folder(tmp_path / "multirun" / "exp" / "0_a_x", "k2", "2")

    def second_page(key):
        return run_pages(pd.Series({"run_dir": str(folder), "run_key": key}))["token_f1"].iloc[1]

    assert second_page("k2") == 2  # the folder holds the row's run
    assert second_page("k1") == 1  # the folder holds another run: the row's archive
    assert pages(folder)["token_f1"].iloc[1] == 2  # no key to hold it to: the folder
    with pytest.raises(MissingRuns, match="k3"):
        second_page("k3")
    with pytest.raises(MissingRuns, match="2 rows, the row says n_pages = 3"):  # a truncated file
        run_pages(pd.Series({"run_dir": str(folder), "run_key": "k2", "n_pages": 3}))


def test_the_stores_page_rows_come_from_the_archive_without_the_run_folders():
    """Each committed archive gives back its row's pages (its page count) by the row's run_dir alone."""
    runs = read_runs(STORE)
    rows = runs[runs["run_dir"].astype(str).str.contains("/table_languages_stack/")]
    assert len(rows) >= 12
    for _, row in rows.iterrows():
        found = archived_run_dir(row["run_dir"])
        assert found is not None, row["run_dir"]
        assert len(pd.read_csv(found / "pages.csv")) == row["n_pages"]


def _plaintext_run(tmp_path, output):
    data = write_pairs(tmp_path / "pages", {"a": ("<body><p>" + "word " * 30 + "</p><a>Home</a></body>", "word " * 30)})
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        overrides = ["extractor=bte", "dataset=plaintext", f"dataset.root={data}", f"paths.root_dir={tmp_path}"]
        cfg = compose("config", overrides=overrides)
    return cfg, run(cfg, output)


def test_a_restored_run_is_kept_by_the_runner_and_archived_from_the_cli(tmp_path, capsys, monkeypatch):
    cfg, summary = _plaintext_run(tmp_path, tmp_path / "multirun" / "exp" / "0_bte_plaintext")
    store = tmp_path / "results" / "runs.csv"
    store.parent.mkdir()
    pd.DataFrame({"run_key": [summary["run_key"]], "run_dir": ["multirun/exp/0_bte_plaintext"]}).to_csv(store)
    assert main(["--archive", str(store), str(tmp_path / "multirun")]) == 0
    packed = tmp_path / "results" / "archive" / f"exp/0_bte_plaintext{SUFFIX}"
    assert archived_summary(packed)["run_key"] == summary["run_key"]
    monkeypatch.chdir(tmp_path)
    (tmp_path / ARCHIVE_DIR).parent.mkdir(parents=True, exist_ok=True)
    packed.parent.parent.rename(tmp_path / ARCHIVE_DIR)
    assert main(["--restore", "fresh"]) == 0
    assert "restored 1 archived runs into fresh" in capsys.readouterr().out
    job = tmp_path / "fresh" / "exp" / "0_bte_plaintext"
    assert previous_run(job, "run_key", summary["run_key"]) is not None
    kept = run(cfg, job)
    assert kept["finished_at"] == summary["finished_at"]  # kept, not run again
    assert kept["metrics"] == summary["metrics"]
    pd.DataFrame({"run_key": ["nowhere"], "run_dir": ["multirun/exp/9_x"]}).to_csv(store)
    assert main(["--archive", str(store), str(tmp_path / "fresh")]) == 1
    assert "missing: nowhere multirun/exp/9_x" in capsys.readouterr().out


#: The figures of a row that its archived run must give again (the timings are the archived
#: run's own: a run kept on another machine keeps the first machine's).
QUALITY = ("n_pages", "n_errors", "token.f1", "word.f1", "block.f1", "cleaneval.mean", "cleaneval.micro")
#: Extractors whose output on a page can change from one call to the next in the same process,
#: so that two runs with one run key differ slightly, and the relative difference allowed:
#: newspaper4k gives WCXB page 0586 either of two texts over repeated calls (its candidate nodes
#: are deduplicated through a set of lxml elements; ``docs/extractors/newspaper.md``), and its
#: Dragnet figures differ by up to 3e-4 of their value between two runs.
UNSTEADY = {"newspaper": 2e-3}


def test_every_committed_archive_is_a_row_of_the_store_with_its_figures():
    archive = PROJECT / ARCHIVE_DIR
    rows = read_runs(PROJECT / STORE).set_index("run_key")
    for path in sorted(archive.rglob(f"*{SUFFIX}")):
        summary = archived_summary(path)
        assert summary["run_key"] in rows.index, f"{path.name}: no row of the store has its run key"
        row = rows.loc[summary["run_key"]]
        figures = {"n_pages": summary["n_pages"], "n_errors": summary["n_errors"]}
        figures |= {f"{g}.{n}": v for g, values in summary["metrics"].items() for n, v in values.items()}
        relative = UNSTEADY.get(summary["extractor"], 0.0)
        for name in QUALITY:
            if name in figures and figures[name] is not None:
                ours, theirs = float(row[name]), float(figures[name])
                assert math.isclose(ours, theirs, rel_tol=relative, abs_tol=1e-12), (path, name)


def _timed(path, key, finished):
    """A run folder whose summary says when it finished."""
    folder = _folder(path, key)
    summary = json.loads((folder / "summary.json").read_text())
    (folder / "summary.json").write_text(json.dumps({**summary, "finished_at": finished}))
    return folder


def test_a_rerun_under_the_same_key_replaces_the_archive_of_the_earlier_run(tmp_path):
    root, archive = tmp_path / "multirun", tmp_path / "archive"
    (archive / "exp").mkdir(parents=True)
    (archive / "exp" / f"0_a_x{SUFFIX}").write_bytes(pack(_timed(tmp_path / "first", "ka", "2026-12-02T01:32:15")))
    (archive / "exp" / f"1_b_x{SUFFIX}").write_bytes(pack(_timed(tmp_path / "b_first", "kb", "2026-12-02T01:33:00")))
    _timed(root / "exp" / "0_a_x", "ka", "2026-12-02T16:45:40")  # the timing rerun, whose row the store holds
    rows = pd.DataFrame(
        {
            "run_key": ["ka", "kb"],
            "run_dir": ["/m/exp/0_a_x", "/m/exp/1_b_x"],
            "finished_at": ["2026-12-02T16:45:40", "2026-12-02T16:46:00"],  # kb's rerun is not on this machine
        }
    )
    report = archive_store(rows, [root], archive)
    assert report.written == ["exp/0_a_x"]
    assert archived_summary(archive / "exp" / f"0_a_x{SUFFIX}")["finished_at"] == "2026-12-02T16:45:40"
    assert report.outdated == [
        "kb /m/exp/1_b_x: archived run finished 2026-12-02T01:33:00, the row 2026-12-02T16:46:00"
    ]
    assert report.unchanged == ["exp/1_b_x"] and report.missing == []
    # archived again: the archive now holds the row's run, nothing is rewritten
    again = archive_store(rows.iloc[:1], [root], archive)
    assert (again.written, again.unchanged, again.outdated) == ([], ["exp/0_a_x"], [])


def test_a_restored_earlier_run_does_not_pass_for_the_rows_own(tmp_path):
    root, archive = tmp_path / "multirun", tmp_path / "archive"
    (archive / "exp").mkdir(parents=True)
    (archive / "exp" / f"0_a_x{SUFFIX}").write_bytes(pack(_timed(tmp_path / "first", "ka", "2026-12-02T01:32:15")))
    restore(archive, root)  # the folder here is the archived, earlier run
    rows = pd.DataFrame({"run_key": ["ka"], "run_dir": ["/m/exp/0_a_x"], "finished_at": ["2026-12-02T16:45:40"]})
    report = archive_store(rows, [root], archive)
    assert (report.written, report.unchanged) == ([], ["exp/0_a_x"])
    assert report.outdated == [
        "ka /m/exp/0_a_x: archived run finished 2026-12-02T01:32:15, the row 2026-12-02T16:45:40"
    ]


def test_the_stores_tables_whose_runs_are_all_readable_are_what_the_code_builds(tmp_path, monkeypatch):
    """Each table whose every run is archived (or here) is rebuilt from the store's rows alone and
    must equal its stored files byte for byte (figures are left out: their bytes may follow the
    machine's fonts). What would fail: a table builder changed without ``boilerbench report
    update``, or a stored table edited by hand."""
    monkeypatch.chdir(PROJECT)
    (tmp_path / "none").mkdir()
    build_all([str(tmp_path / "none")], tmp_path / "out", STORE)
    tables = {a.name for a in ARTEFACTS if a.kind == "table"}
    rebuilt = readable_artefacts(read_runs(tmp_path / "out" / "runs.csv")) & tables
    assert {"table_languages_cv", "table_training_weights", "table_headline"} <= rebuilt
    built = [p for p in sorted((tmp_path / "out").iterdir()) if p.name.split(".")[0] in rebuilt]
    assert len(built) == 3 * len(rebuilt)
    stored = PROJECT / "reports" / "results"
    assert [p.name for p in built if (stored / p.name).read_bytes() != p.read_bytes()] == []
