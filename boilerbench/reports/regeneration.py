"""What a regeneration (``make reports``) reran and what it reused. A job whose folder already held
the results of that very run (same ``run_key``: config, code versions, packages and pages;
:mod:`boilerbench.experiments.reuse`) is kept, its ``summary.json`` untouched but for the
``quick_key``; a job that ran wrote a new one. So the runs that finished since the regeneration
started were rerun, and the others were reused."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from boilerbench.experiments.results import RunFileError, read_summary


def finished(summary_file: Path) -> datetime | None:
    """When the run of ``summary_file`` finished (None when it does not say; UTC when it gives no offset)."""
    try:
        stamp = datetime.fromisoformat(read_summary(summary_file).get("finished_at", ""))
    except (OSError, ValueError, TypeError, RunFileError):
        return None
    return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=timezone.utc)


def rerun_and_reused(run_dirs: list[str], since: datetime) -> tuple[list[Path], list[Path]]:
    """The run folders under ``run_dirs`` whose run finished at or after ``since`` (rerun), and
    the others (reused)."""
    rerun: list[Path] = []
    reused: list[Path] = []
    for folder in run_dirs:
        for summary in sorted(Path(folder).rglob("summary.json")):
            stamp = finished(summary)
            (rerun if stamp is not None and stamp >= since else reused).append(summary.parent)
    return rerun, reused


def regeneration_note(run_dirs: list[str], since: datetime) -> str:
    """``reused N runs, reran M: A, B, ...``."""
    rerun, reused = rerun_and_reused(run_dirs, since)
    names = ", ".join(str(p) for p in rerun)
    return f"reused {len(reused)} runs, reran {len(rerun)}" + (f": {names}" if rerun else "")
