"""What a job cost: CPU seconds (user + system, of the process and of the worker processes it
waited for) and peak resident memory, from ``getrusage(2)``, recorded in each run's
``summary.json`` (``resources``) and from there in ``runs.csv`` and ``table_budget``.

A launcher may run several jobs in one process (Hydra's basic launcher runs a sweep's jobs one
after another; joblib's workers are reused), so :func:`start_job` takes a snapshot that
:func:`job_resources` subtracts, and resets the process's peak memory (Linux's
``/proc/self/clear_refs``, value 5: "reset the peak resident set size", proc(5)) so that the
peak is this job's. Where that reset is not possible the peak is the process's since it started
(an upper bound). Worker processes count with the largest peak any of them reached.
"""

from __future__ import annotations

import resource
import sys
from dataclasses import dataclass
from pathlib import Path

#: ``ru_maxrss`` is in kilobytes on Linux, in bytes on macOS.
_MAXRSS_BYTES = 1 if sys.platform == "darwin" else 1024


@dataclass(frozen=True)
class Snapshot:
    """CPU seconds used so far by the process and its waited-for children, and the children's peak."""

    cpu_s: float
    children_peak: int


def _cpu_s() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _peak_bytes() -> int:
    """The process's peak resident memory since start or since the last reset: ``VmHWM``."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * _MAXRSS_BYTES


_start = Snapshot(0.0, 0)


def start_job() -> None:
    """Mark the start of a job in this process: later :func:`job_resources` count from here."""
    global _start
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass
    _start = Snapshot(_cpu_s(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)


def job_resources() -> dict[str, float]:
    """``cpu_s`` and ``peak_rss_mb`` (MiB) of the job since :func:`start_job` (since the process
    started if it was not called)."""
    peak = _peak_bytes()
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if children > _start.children_peak:
        peak = max(peak, children * _MAXRSS_BYTES)
    return {"cpu_s": round(_cpu_s() - _start.cpu_s, 3), "peak_rss_mb": round(peak / 2**20, 1)}
