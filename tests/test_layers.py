"""The floors of the package (DESIGN.md), enforced over the import graph: the import-linter
contracts in pyproject.toml (``[tool.importlinter]``: each module imports only from the floors
below its own, and no cycle between the modules of one folder) hold for this checkout, and they
break when a ground-floor module imports the command line (a planted upward import)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PROJECT

pytest.importorskip("importlinter")

LINT = "from importlinter.cli import lint_imports; raise SystemExit(lint_imports(no_cache=True, no_logo=True))"


def lint(root: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` on the package under ``root``, with the contracts of its pyproject.toml."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, "-c", LINT], cwd=root, env=env, capture_output=True, text=True, timeout=120)


def test_the_contracts_hold():
    done = lint(PROJECT)
    assert done.returncode == 0, done.stdout[-4000:]
    assert "Contracts: 2 kept, 0 broken." in done.stdout


def test_an_upward_import_breaks_the_floors(tmp_path):
    shutil.copytree(PROJECT / "boilerbench", tmp_path / "boilerbench", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(PROJECT / "pyproject.toml", tmp_path / "pyproject.toml")
    text = tmp_path / "boilerbench" / "text.py"
    text.write_text(text.read_text() + "\nfrom boilerbench import cli  # noqa: E402 (planted)\n")
    done = lint(tmp_path)
    assert done.returncode == 1
    assert "Floors: each module imports only from the floors below it BROKEN" in done.stdout
    assert "boilerbench.text -> boilerbench.cli" in done.stdout
