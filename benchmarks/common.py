"""What the benchmarks share: the one timing helper, the figures a benchmark reports to the
harness (``python -m benchmarks``: :mod:`benchmarks.__main__`), and the scripts' entry point (a
user-facing error, such as missing data or a bad option, is one line on stderr and exit status 2,
as with ``boilerbench run``)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np

from boilerbench.errors import BoilerbenchError

T = TypeVar("T")

#: The figures of the benchmark that the harness is running (None: run alone, nothing collected).
_figures: dict[str, float] | None = None


def timed(fn: Callable[[], T], clock: Callable[[], float] = time.perf_counter) -> tuple[T, float]:
    """``fn()``'s value and the seconds it took on ``clock`` (wall time; ``time.process_time``
    for this process's CPU time, which other jobs on a shared machine do not inflate)."""
    start = clock()
    value = fn()
    return value, clock() - start


def ms_each(
    items: Iterable[Any], fn: Callable[[Any], object], clock: Callable[[], float] = time.perf_counter
) -> np.ndarray:
    """Milliseconds of ``fn(item)`` for each item, on ``clock`` (:func:`timed`)."""
    return np.array([1000 * timed(lambda item=item: fn(item), clock)[1] for item in items], dtype=float)


def record(name: str, value: float) -> None:
    """Report one figure of the running benchmark to the harness (nothing when run alone)."""
    if _figures is not None:
        _figures[name] = round(float(value), 6)


@contextmanager
def collecting() -> Iterator[dict[str, float]]:
    """The figures that the benchmark run inside the block records."""
    global _figures
    _figures = {}
    try:
        yield _figures
    finally:
        _figures = None


def run_main(main: Callable[[list[str]], int]) -> None:
    """Call ``main`` with the command-line arguments and exit with its status."""
    try:
        sys.exit(main(sys.argv[1:]))
    except BoilerbenchError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
