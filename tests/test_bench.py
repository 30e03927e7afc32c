"""The benchmark harness (``python -m benchmarks``, ``make bench``): every benchmark module gives
the harness its two sizes and a ``main``; a run writes one JSON file with each benchmark's
status and the figures it recorded; a benchmark that cannot run here is ``skipped`` with its
reason and one that fails is ``failed``, and the others still run. What would fail: a benchmark
left out of the registry or without sizes, figures not reaching the file, one broken benchmark
losing the others' figures."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest
from conftest import PROJECT

from benchmarks import __main__ as harness
from benchmarks.common import record, timed
from benchmarks.speed import median_interval, quietly, rotated
from boilerbench.errors import MissingDependencyError


def test_every_benchmark_module_is_registered_with_its_sizes():
    modules = sorted(
        p.stem for p in (PROJECT / "benchmarks").glob("*.py") if p.stem not in ("__init__", "__main__", "common")
    )
    assert sorted(harness.BENCHMARKS) == modules
    for name in modules:
        module = importlib.import_module(f"benchmarks.{name}")
        assert callable(module.main) and isinstance(module.QUICK, list) and isinstance(module.FULL, list), name


def test_timed_returns_the_value_and_the_seconds_on_its_clock():
    ticks = iter([10.0, 12.5])
    assert timed(lambda: "done", clock=lambda: next(ticks)) == ("done", 2.5)


def test_the_interval_for_a_median_is_between_order_statistics_at_their_binomial_coverage():
    # nine rounds: P(Bin(9, 1/2) < 2) = 10/512 is within 2.5 %, P(< 3) = 46/512 is not: 2nd and 8th
    assert median_interval([9, 1, 8, 2, 7, 3, 6, 4, 5]) == (2, 8, 1 - 20 / 512)
    # twenty rounds: the textbook (6th, 15th), coverage 95.9 %
    low, high, coverage = median_interval(range(20, 0, -1))
    assert (low, high) == (6, 15) and coverage == pytest.approx(0.9586, abs=1e-4)
    # five rounds cannot reach 95 %: the range, at its own 1 - 2/32
    assert median_interval([1.3, 0.8, 1.0, 1.1, 1.2]) == (0.8, 1.3, 1 - 2 / 32)


def test_over_as_many_rounds_as_commands_each_command_runs_once_in_every_position():
    commands = ["ours -j 1", "reference -j 1", "ours -j 2", "reference -j 2"]
    orders = [rotated(commands, turn) for turn in range(8)]
    assert orders[0] == commands and orders[1][0] == "reference -j 1" and orders[4] == commands
    for position in range(4):
        assert sorted(order[position] for order in orders[:4]) == sorted(commands)
    assert rotated([], 3) == []


def _fake(name: str, main) -> types.ModuleType:
    module = types.ModuleType(f"benchmarks.{name}")
    module.main, module.QUICK, module.FULL = main, ["--small"], ["--big"]  # type: ignore[attr-defined]
    return module


def test_the_harness_writes_every_benchmarks_figures_and_goes_on_past_failures(tmp_path, monkeypatch):
    def fast(argv: list[str]) -> int:
        record("pages_per_s", 100.0 if argv == ["--small"] else 1.0)
        return 0

    def no_data(argv: list[str]) -> int:
        raise MissingDependencyError("no dataset here")

    def broken(argv: list[str]) -> int:
        record("partial", 3)
        raise ZeroDivisionError("a bug")

    fakes = {"fast": _fake("fast", fast), "no_data": _fake("no_data", no_data), "broken": _fake("broken", broken)}
    monkeypatch.setattr(harness, "BENCHMARKS", tuple(fakes))
    monkeypatch.setattr(harness.importlib, "import_module", lambda name: fakes[name.rsplit(".", 1)[1]])
    out = tmp_path / "bench.json"
    assert harness.main(["-o", str(out)]) == 1
    results = json.loads(out.read_text())
    entries = results["benchmarks"]
    assert results["size"] == "quick" and list(entries) == ["fast", "no_data", "broken"]
    assert entries["fast"]["status"] == "ok" and entries["fast"]["figures"] == {"pages_per_s": 100.0}
    assert entries["fast"]["args"] == ["--small"] and entries["fast"]["seconds"] >= 0
    assert entries["no_data"] == {
        "args": ["--small"], "status": "skipped", "reason": "MissingDependencyError: no dataset here", "figures": {}
    }  # fmt: skip
    assert entries["broken"]["status"] == "failed" and entries["broken"]["figures"] == {"partial": 3.0}
    assert harness.main(["--full", "--only", "fast", "-o", str(out)]) == 0
    assert json.loads(out.read_text())["benchmarks"]["fast"]["figures"] == {"pages_per_s": 1.0}


def test_an_unknown_benchmark_is_a_usage_error(tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        harness.main(["--only", "nope", "-o", str(tmp_path / "b.json")])
    assert exit_info.value.code == 2 and not Path(tmp_path / "b.json").exists()


@pytest.mark.slow
def test_the_bootstrap_benchmark_reports_its_figures(tmp_path):
    out = tmp_path / "bench.json"
    assert harness.main(["--only", "bootstrap_speed", "-o", str(out)]) == 0
    figures = json.loads(out.read_text())["benchmarks"]["bootstrap_speed"]["figures"]
    assert sorted(figures) == ["intervals_s", "paired_comparison_s"] and all(v > 0 for v in figures.values())


def test_the_memory_table_in_the_store_keeps_one_row_per_extractor_and_marks_lower_bounds(tmp_path):
    from benchmarks import memory

    where = {"page_chars": 50_001_491, "threads": "1", "commit": "abc", "measured": "2026-11-27"}
    first = {"before_mb": 189.4, "extract_peak_mb": 860.2, "extract_s": 12.94, "peak_mb": 1608.0, "s": 41.0}
    memory.store_row(tmp_path, {**first, **where, "bound": False, "error": "", "extractor": "bte"})
    killed = {"peak_mb": 8269.3, "bound": True, "error": "over the cap", "code_version": "0123"}
    memory.store_row(tmp_path, {**killed, **where, "extractor": "lm_embedding"})
    rows = memory.store_row(tmp_path, {**first, **where, "bound": False, "error": "", "extractor": "all_text"})
    assert [r["extractor"] for r in rows] == ["all_text", "bte", "lm_embedding"]
    again = memory.store_row(tmp_path, {**where, "peak_mb": 900.0, "bound": False, "error": "", "extractor": "bte"})
    assert [r["peak_mb"] for r in again] == ["1608.0", "900.0", "8269.3"]  # bte's row replaced, not added
    lines = (tmp_path / "table_memory.md").read_text().splitlines()
    assert lines[4] == "| all_text | 50.0 | 189 | 860 | 12.9 | 1,608 | 41.0 | 1 |  | abc |"
    assert lines[5] == "| bte | 50.0 | - | - | - | 900 | - | 1 |  | abc |"
    assert lines[6] == "| lm_embedding | 50.0 | - | - | - | >8,269 | - | 1 | over the cap | abc |"
    assert (tmp_path / "table_memory.csv").read_text().splitlines()[3].endswith(",0123,abc,2026-11-27")


def test_a_timed_command_may_fail_some_pages_not_more():
    quietly([sys.executable, "-c", "raise SystemExit(1)"])  # boilerbench extract: a page failed, the rest done
    with pytest.raises(subprocess.CalledProcessError):
        quietly([sys.executable, "-c", "raise SystemExit(2)"])  # a wrong option: nothing was timed
