"""``make reports`` says what it reran and what it reused: a job whose folder holds the results of
that very run (same run key) is kept, its summary.json untouched; the others run again."""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone

import pytest
from hydra import compose, initialize_config_dir

from boilerbench.configs import CONF_DIR
from boilerbench.experiments import run
from boilerbench.reports.__main__ import main
from boilerbench.reports.regeneration import regeneration_note, rerun_and_reused

PAGE = ("<body><div><a>Home</a></div><p>" + "word " * 30 + "</p></body>", "word " * 30)


def _run(tmp_path, extractor):
    data = tmp_path / "pages"
    data.mkdir(exist_ok=True)
    (data / "a.html").write_text(PAGE[0])
    (data / "a.txt").write_text(PAGE[1])
    overrides = [f"extractor={extractor}", "dataset=plaintext", f"dataset.root={data}", f"paths.root_dir={tmp_path}"]
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        return run(compose("config", overrides=overrides), tmp_path / "multirun" / extractor)


@pytest.mark.slow
def test_only_the_job_whose_run_key_changed_reruns_and_the_note_says_so(tmp_path, capsys):
    for extractor in ("bte", "cetd"):
        _run(tmp_path, extractor)
    time.sleep(1)  # finished_at has seconds
    began = datetime.now(timezone.utc).replace(microsecond=0)  # as make reports gives it
    # cetd's stored run now has another key (as after a change to its code): it must run again
    stored = tmp_path / "multirun" / "cetd" / "summary.json"
    summary = json.loads(stored.read_text())
    summary["run_key"] = summary["quick_key"] = "0" * 24
    stored.write_text(json.dumps(summary))
    kept = json.loads((tmp_path / "multirun" / "bte" / "summary.json").read_text())
    for extractor in ("bte", "cetd"):
        _run(tmp_path, extractor)
    again = json.loads((tmp_path / "multirun" / "bte" / "summary.json").read_text())
    # kept: the same run (the page files were rewritten, so only its quick key is new)
    assert {**again, "quick_key": ""} == {**kept, "quick_key": ""}
    rerun, reused = rerun_and_reused([str(tmp_path / "multirun")], began)
    assert [p.name for p in rerun] == ["cetd"] and [p.name for p in reused] == ["bte"]
    assert regeneration_note([str(tmp_path / "multirun")], began) == (
        f"reused 1 runs, reran 1: {tmp_path / 'multirun' / 'cetd'}"
    )
    # the reports command prints it at the end when given the regeneration's start
    capsys.readouterr()
    out = tmp_path / "out"
    since = began.isoformat(timespec="seconds")
    assert main([str(tmp_path / "multirun"), "--out", str(out), "--since", since]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("reused 1 runs, reran 1: ")
