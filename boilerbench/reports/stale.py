"""The stale-figure check: which rows of a results store (``runs.csv``) were made by extractor
code that HEAD's code no longer is. ``python -m boilerbench.reports --check [RUNS_CSV]`` prints
one line per stale row and exits 1 when there is one.

A row's extractor code version is what the runner recorded (``summary.json`` ``code_version``:
:func:`boilerbench.experiments.model_cache.extractor_version`, the syntax trees of the
extractor's module and of every project module it imports, an ensemble's or a stack's members
included). HEAD's is computed by the same function on the extractor built from the row's
config (``conf/extractor/<name>.yaml`` with the row's ``params``): building an extractor does
no work (the Extractor contract), and the version is read from the source files, so the check
runs nothing. A row with no recorded version (a run from before versions were kept in
``runs.csv``) cannot be vouched for and is stale too, with that reason."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pandas as pd

from boilerbench.configs import build, extractor_config, extractor_names
from boilerbench.errors import BoilerbenchError
from boilerbench.experiments.model_cache import extractor_version

#: The reason of a row whose run did not record its code version.
UNRECORDED = "no code version recorded"


@dataclass(frozen=True)
class StaleRow:
    """A row of the store whose figures HEAD's code may not give."""

    run_dir: str
    report: str
    extractor: str
    dataset: str
    params: str
    recorded: str
    current: str
    reason: str

    def line(self) -> str:
        return f"stale: {self.report or '-'} {self.extractor} on {self.dataset} ({self.run_dir}): {self.reason}"


@cache
def current_version(name: str, params: str) -> str:
    """HEAD's code version of extractor ``name`` with ``params`` (a row's JSON, empty: the
    config's defaults); raises :class:`BoilerbenchError` when HEAD has no such extractor."""
    if name not in extractor_names():
        raise BoilerbenchError(f"HEAD has no extractor config {name!r}")
    if params:
        # the composed config's target: a config may take it from another (stack_fast's defaults: stack)
        target = extractor_config(name)["_target_"]
        return extractor_version(build({"_target_": target, **json.loads(params)}))
    return extractor_version(build(extractor_config(name)))


def stale_rows(runs: pd.DataFrame) -> list[StaleRow]:
    """Every row of ``runs`` whose recorded extractor code version is missing or differs from HEAD's."""
    stale = []
    for _, row in runs.iterrows():
        recorded = str(row.get("code_version", "") or "")
        recorded = "" if recorded == "nan" else recorded
        if not recorded:
            stale.append(_stale(row, "", "", UNRECORDED))
            continue
        try:
            current = current_version(str(row["extractor"]), _params(row))
        except (BoilerbenchError, ValueError) as err:
            current, reason = "", f"its version at HEAD cannot be computed ({err})"
        else:
            if recorded == current:
                continue
            reason = f"made by code version {recorded}, HEAD's is {current}"
        stale.append(_stale(row, recorded, current, reason))
    return stale


def _stale(row: pd.Series, recorded: str, current: str, reason: str) -> StaleRow:
    return StaleRow(
        run_dir=str(row.get("run_dir", "")),
        report=str(row.get("report", "")),
        extractor=str(row["extractor"]),
        dataset=str(row.get("dataset", "")),
        params=_params(row),
        recorded=recorded,
        current=current,
        reason=reason,
    )


def _params(row: pd.Series) -> str:
    """A row's ``params`` JSON (empty where runs.csv has none)."""
    params = str(row.get("params", "") or "")
    return "" if params == "nan" else params


#: Run in the previous commit's tree: each (extractor, params) key's code version there, with that
#: tree's own functions (which the stale check's module may predate).
_VERSIONS_THEN = """
import json, sys
from omegaconf import OmegaConf
from boilerbench.experiments.model_cache import extractor_version
from boilerbench.configs import CONF_DIR, build, extractor_config
out = {}
for name, params in json.load(sys.stdin):
    try:
        if params:
            target = OmegaConf.select(OmegaConf.load(CONF_DIR / "extractor" / f"{name}.yaml"), "_target_")
            config = {"_target_": target, **json.loads(params)}
        else:
            config = extractor_config(name)
        out[name + "\\0" + params] = extractor_version(build(config))
    except Exception as err:
        out[name + "\\0" + params] = "error: " + str(err)
print(json.dumps(out))
"""


def versions_at(revision: str, keys: list[tuple[str, str]], repository: Path = Path(".")) -> dict[tuple[str, str], str]:
    """The code versions the tree of git ``revision`` gives the (extractor, params) ``keys``: its
    tree is exported into a temporary folder (``git archive``: the package and, in older layouts,
    the configs beside it) and asked in a fresh interpreter. Raises :class:`BoilerbenchError`
    when git cannot show ``revision`` (a shallow clone's first commit)."""
    with tempfile.TemporaryDirectory(prefix="boilerbench-then-") as folder:
        archive = subprocess.run(["git", "-C", str(repository), "archive", revision], capture_output=True, check=False)
        if archive.returncode != 0:
            raise BoilerbenchError(f"git cannot show {revision}: {archive.stderr.decode(errors='replace').strip()}")
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            files = [m for m in tar if not (m.issym() or m.islnk())]  # a committed link is no code
            tar.extractall(folder, members=files, filter="data")
        asked = subprocess.run(
            [sys.executable, "-c", _VERSIONS_THEN],
            input=json.dumps(keys),
            capture_output=True,
            text=True,
            cwd=folder,
            env={**os.environ, "PYTHONPATH": folder},
            check=False,
        )
    if asked.returncode != 0:
        raise BoilerbenchError(f"the code of {revision} could not give its versions: {asked.stderr.strip()[-300:]}")
    found = json.loads(asked.stdout.strip().splitlines()[-1])
    return {(k.split("\0")[0], k.split("\0")[1]): v for k, v in found.items()}


def reference_revision(store: str, repository: Path = Path(".")) -> str:
    """The commit whose code the CI gate compares HEAD's with: the last commit before HEAD that
    wrote the store (``store``, a path in the repository), so that a code change spread over
    several commits, or landed by a fast-forward, is still caught; ``HEAD~1`` when HEAD wrote it
    or git knows no such commit."""
    found = subprocess.run(
        ["git", "-C", str(repository), "log", "-1", "--format=%H", "HEAD~1", "--", store],
        capture_output=True,
        text=True,
        check=False,
    )
    head_wrote = subprocess.run(
        ["git", "-C", str(repository), "diff", "--quiet", "HEAD~1", "HEAD", "--", store], check=False
    )
    written = found.stdout.strip()
    return written if found.returncode == 0 and written and head_wrote.returncode == 0 else "HEAD~1"


def _key(row: StaleRow) -> tuple[str, str]:
    return row.extractor, row.params


def went_stale(stale: list[StaleRow], previous: dict[tuple[str, str], str]) -> list[StaleRow]:
    """The stale rows that were current at the previous commit (their recorded version is what
    its code gave, ``previous``): that commit changed their extractor's code without
    regenerating them. Rows stale before it, or with no recorded version, are not among them."""
    return [r for r in stale if r.recorded and r.current and previous.get(_key(r)) == r.recorded]
