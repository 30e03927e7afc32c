"""The stale-figure check (``python -m boilerbench.reports --check``): a row of the results store is
stale when its extractor's recorded code version is not what HEAD's code gives; and the CI gate
over the committed store: no row may have gone stale in the commit under test."""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import PROJECT
from hydra import compose, initialize_config_dir

from boilerbench.configs import CONF_DIR
from boilerbench.errors import BoilerbenchError
from boilerbench.experiments import run
from boilerbench.reports.__main__ import STORE, main
from boilerbench.reports.collect import collect, read_runs
from boilerbench.reports.stale import (
    UNRECORDED,
    StaleRow,
    current_version,
    reference_revision,
    stale_rows,
    versions_at,
    went_stale,
)

PAGES = {"a": ("<body><div><a>Home</a></div><p>" + "word " * 40 + "</p></body>", "word " * 40)}


def _run(tmp_path, overrides: list[str], name: str):
    data = tmp_path / "pages"
    data.mkdir(exist_ok=True)
    for page, (html, gold) in PAGES.items():
        (data / f"{page}.html").write_text(html)
        (data / f"{page}.txt").write_text(gold)
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose(
            "config",
            overrides=[*overrides, "dataset=plaintext", f"dataset.root={data}", f"paths.root_dir={tmp_path}"],
        )
    return run(cfg, tmp_path / "runs" / name)


def _bte_run(tmp_path):
    return _run(tmp_path, ["extractor=bte"], "bte")


def test_a_fresh_run_is_current_and_a_planted_stale_row_fails_the_check(tmp_path, capsys):
    summary = _bte_run(tmp_path)
    runs = collect([tmp_path / "runs"])
    # every row carries where it came from
    assert runs.loc[0, "run_key"] == summary["run_key"] and len(summary["run_key"]) == 24
    assert runs.loc[0, "code_version"] == summary["code_version"]
    # the check recomputes, without running anything, the version the runner recorded
    assert stale_rows(runs) == []
    good = tmp_path / "runs.csv"
    runs.to_csv(good, index=False)
    assert main(["--check", str(good)]) == 0
    planted = runs.copy()
    planted.loc[0, "code_version"] = "0123456789abcdef"
    bad = tmp_path / "planted.csv"
    planted.to_csv(bad, index=False)
    capsys.readouterr()
    assert main(["--check", str(bad)]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"stale: - bte on plaintext ({runs.loc[0, 'run_dir']}): made by code version 0123456789abcdef, "
        f"HEAD's is {summary['code_version']}"
    ]
    assert "1 of 1 rows" in err


def test_an_ensemble_row_is_current_with_its_members_in_their_order(tmp_path):
    # the members order the votes and the version: a row that sorted them rebuilt another ensemble
    summary = _run(tmp_path, ["extractor=majority_vote", "extractor/members=[resiliparse,justext]"], "vote")
    runs = collect([tmp_path / "runs"])
    assert list(json.loads(runs.loc[0, "params"])["members"]) == ["resiliparse", "justext"]
    assert runs.loc[0, "code_version"] == summary["code_version"]
    runs.loc[0, "extractor"] = "majority_vote"  # the config's name, as a run under Hydra records it
    assert stale_rows(runs) == []


def test_rows_without_a_version_or_extractor_are_stale_with_their_reason(tmp_path):
    runs = read_runs_from(
        tmp_path,
        "run_dir,report,extractor,dataset,split,protocol,trained_on,params,finished_at,code_version\n"
        "old,table_x,bte,cleaneval,cleaneval,test,,,,\n"
        "gone,table_x,no_such_extractor,cleaneval,cleaneval,test,,,,0123456789abcdef\n",
    )
    reasons = [(r.run_dir, r.reason) for r in stale_rows(runs)]
    assert reasons[0] == ("old", UNRECORDED)
    assert reasons[1][0] == "gone" and "HEAD has no extractor config 'no_such_extractor'" in reasons[1][1]


def read_runs_from(tmp_path, text):
    path = tmp_path / "runs.csv"
    path.write_text(text)
    return read_runs(path)


def _row(extractor, recorded, current):
    return StaleRow("d", "r", extractor, "cleaneval", "", recorded, current, "reason")


def test_only_rows_current_at_the_previous_commit_went_stale_in_this_one():
    stale = [_row("bte", "aaa", "ccc"), _row("cetd", "old", "ccc"), _row("crf", "", "")]
    previous = {("bte", ""): "aaa", ("cetd", ""): "bbb", ("crf", ""): "zzz"}
    # bte was current before this commit changed its code; cetd was already stale; crf recorded nothing
    assert [r.extractor for r in went_stale(stale, previous)] == ["bte"]


def _committed() -> bool:
    """Whether the working tree's package is HEAD's (versions_at reads commits, not edits)."""
    diff = subprocess.run(["git", "-C", str(PROJECT), "diff", "--quiet", "HEAD", "--", "boilerbench"], check=False)
    return diff.returncode == 0


@pytest.mark.slow
def test_versions_at_a_commit_are_that_commits_code():
    if not _committed():
        pytest.skip("boilerbench/ has uncommitted changes")
    assert versions_at("HEAD", [("bte", "")], PROJECT) == {("bte", ""): current_version("bte", "")}


def test_the_gate_compares_with_the_last_commit_that_wrote_the_store(tmp_path):
    """A code change spread over two commits (or landed by a fast-forward) is compared with the
    store's last writer, not with HEAD~1, whose code may already be the changed one; a commit that
    rewrites the store is compared with its parent. What would fail: always HEAD~1 (the second
    commit of a change would pass the gate), or the store's writer when HEAD itself wrote it."""

    def commit(name: str, **files: str) -> str:
        for path, text in files.items():
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_text(text)
        git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-qm", name], check=True)
        return subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    store = "results/runs.csv"
    written = commit("store", **{store: "rows", "code.py": "a = 1"})
    commit("code", **{"code.py": "a = 2"})
    assert reference_revision(store, tmp_path) == written
    commit("more code", **{"code.py": "a = 3"})
    assert reference_revision(store, tmp_path) == written
    commit("store again", **{store: "new rows"})
    assert reference_revision(store, tmp_path) == "HEAD~1"


def test_versions_at_an_unknown_revision_is_one_error():
    with pytest.raises(BoilerbenchError, match="git cannot show no-such-revision"):
        versions_at("no-such-revision", [("bte", "")], PROJECT)


@pytest.mark.slow  # when the store holds versioned stale rows: the previous commit's code is asked (seconds)
def test_no_row_of_the_store_went_stale_in_this_commit():
    # The CI gate: a row that was current when the store was last written before HEAD
    # (reference_revision) may not be stale now, whichever commit since changed its extractor's code.
    # Rows already stale then, and rows that recorded no version, are listed by --check, not failed here.
    stale = stale_rows(read_runs(PROJECT / STORE))
    candidates = [r for r in stale if r.recorded and r.current]
    if not candidates:
        return
    try:
        previous = versions_at(
            reference_revision(STORE, PROJECT), sorted({(r.extractor, r.params) for r in candidates}), PROJECT
        )
    except BoilerbenchError as err:  # a shallow clone has no previous commit to compare with
        pytest.skip(str(err))
    assert [r.line() for r in went_stale(candidates, previous)] == []


def test_a_row_of_a_config_that_takes_its_target_from_another_is_vouched_for():
    """What would fail: the target read from the config file alone (``stack_fast.yaml`` has none: its
    defaults take the stack's), so that the check crashed on every ``stack_fast`` row."""
    from boilerbench.configs import build, extractor_config
    from boilerbench.experiments.model_cache import extractor_version

    config = extractor_config("stack_fast")
    params = json.dumps({k: v for k, v in sorted(config.items()) if k != "_target_"})
    assert current_version("stack_fast", params) == extractor_version(build(config))
