"""The installed package, outside any checkout: a wheel built from this checkout and installed
(not editable) into a fresh virtual environment in a temporary folder composes and fits the
stack on a small dataset with ``boilerbench run``, then builds the reports and the per-page
viewer of that run with ``boilerbench report`` and ``boilerbench inspect``.

The dependencies are not installed again: the new environment sees this one's site-packages
through a ``.pth`` file (a plain path entry, so an editable install there is not activated), and
the test checks that ``boilerbench`` itself is imported from the new environment. What would
fail: a config, model or viewer file left out of the wheel's package data, a path resolved from
the source tree (the stack's members from a ``conf/`` beside the package), a subcommand missing
from the console script.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PROJECT, write_pairs

from boilerbench.api import SHIPPED_MODELS

PAGES = {
    f"p{n}": (
        f"<html><body><div><a>Home</a> <a>News</a> <a>Sport</a></div><h1>Story {n}</h1>"
        f"<p>The story number {n} tells of a town where the river rose over the bridge in the night.</p>"
        f"<p>Its people moved {n + 2} boats to the square and waited for the morning.</p>"
        "<footer>Copyright 2024 The Paper</footer></body></html>",
        f"Story {n} The story number {n} tells of a town where the river rose over the bridge in the night. "
        f"Its people moved {n + 2} boats to the square and waited for the morning.",
    )
    for n in range(6)
}

#: A small stack: every member (built from its nested config, as the wheel ships it), fewer trees.
STACK = ("extractor=stack", "extractor.n_estimators=20", "extractor.second_stage=false", "extractor.crf=false")


def _run(command: list[str], cwd: Path, env: dict[str, str], timeout: float = 150) -> subprocess.CompletedProcess:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


def build_wheel(out: Path) -> Path:
    """The wheel of this checkout, built from a copy of its sources (the checkout gets no build
    folders) with the build backend installed here (no download)."""
    source = out / "source"
    shutil.copytree(PROJECT / "boilerbench", source / "boilerbench", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(PROJECT / name, source / name)
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), "."]
    _run(command, source, dict(os.environ))
    (wheel,) = out.glob("boilerbench-*.whl")
    return wheel


def fresh_venv(folder: Path, wheel: Path) -> Path:
    """A virtual environment with ``wheel`` installed (not editable) and this environment's
    packages on its path; its ``bin`` folder."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=60)
    python = folder / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    Path(purelib, "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", str(wheel)]
    _run(install, folder, dict(os.environ))
    return python.parent


@pytest.mark.slow
def test_the_wheel_runs_the_stack_reports_and_inspects_outside_the_checkout(tmp_path):
    pytest.importorskip("lightgbm")
    pytest.importorskip("trafilatura")
    bin_dir = fresh_venv(tmp_path / "venv", build_wheel(tmp_path / "dist"))
    work = tmp_path / "work"
    pages = write_pairs(work / "pages", PAGES)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "BOILERBENCH_DATA")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"

    where = _run([str(bin_dir / "python"), "-c", "import boilerbench; print(boilerbench.__file__)"], work, env)
    package = Path(where.stdout.strip()).resolve()
    assert (tmp_path / "venv").resolve() in package.parents and PROJECT.resolve() not in package.parents

    boilerbench = str(bin_dir / "boilerbench")
    run = work / "runs" / "stack"
    overrides = ("dataset=plaintext", f"dataset.root={pages}", "cv.folds=2", "progress=false", f"hydra.run.dir={run}")
    done = _run([boilerbench, "run", *STACK, *overrides], work, env)
    assert "2-fold CV" in done.stdout + done.stderr
    summary = json.loads((run / "summary.json").read_text())
    assert (summary["extractor"], summary["n_pages"], summary["n_errors"]) == ("stack", 6, 0)
    members = summary["config"]["extractor"]["members"]  # nested configs, from the wheel's conf/
    assert list(members) == ["trafilatura", "readability", "justext", "boilerpipe", "resiliparse"]
    assert members["justext"]["_target_"] == "boilerbench.extractors.references.JusText"
    assert [fold["n_train"] for fold in summary["cv"]["per_fold"]] == [3, 3]
    assert len(list((work / "models" / "stack").iterdir())) == 2  # one fitted model per fold, in the cwd's cache

    _run([boilerbench, "report", str(work / "runs"), "--out", str(work / "tables")], work, env)
    assert "stack" in (work / "tables" / "runs.csv").read_text()
    assert (work / "tables" / "README.md").is_file()

    done = _run([boilerbench, "inspect", str(run), "-o", str(work / "site")], work, env)
    assert done.stdout.startswith("6 pages: open ") and (work / "site" / "index.html").is_file()

    for model in SHIPPED_MODELS:  # the shipped models, from the wheel's package data
        done = _run([boilerbench, "extract", "--model", model, str(pages / "p3.html")], work, env)
        lines = done.stdout.splitlines()
        assert "Story 3" in lines and "Copyright 2024 The Paper" not in lines, model
