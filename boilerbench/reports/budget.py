"""``table_budget``: what each experiment costs to regenerate, from ``runs.csv``: CPU-hours (user
+ system time of every job and its worker processes), the largest peak memory of a job, and the
jobs' wall time summed (the experiment's own wall time is shorter when its jobs run side by
side), and that wall time itself per launcher: the time during which at least one of its jobs
ran (``sweeps.csv``, :func:`boilerbench.reports.collect.sweep_rows`), so the same experiment run
two jobs at a time on this machine and on a Dask cluster shows both.
Read from each run's ``summary.json`` ``resources`` (:mod:`boilerbench.experiments.resources`);
runs recorded before those were kept count in ``runs`` but not in the sums (``measured``)."""

from __future__ import annotations

import pandas as pd

from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.tables import Table, fmt

#: (runs.csv column, how a group's values combine, header, scale, decimals).
COLUMNS = (
    ("cpu_s", "sum", "CPU h", 1 / 3600, 2),
    ("wall_s", "sum", "job wall h", 1 / 3600, 2),
    ("fit_s", "sum", "fit h", 1 / 3600, 2),
    ("peak_rss_mb", "max", "peak RSS MiB", 1, 0),
)


def table_budget(runs: pd.DataFrame, sweeps: pd.DataFrame) -> Table:
    """One row per experiment (the runs' ``report`` tag) and a total row; a ``wall h`` column per
    launcher of ``sweeps`` (:data:`boilerbench.reports.collect.SWEEP_COLUMNS`)."""
    cpu = pd.to_numeric(runs["cpu_s"], errors="coerce") if "cpu_s" in runs else pd.Series(float("nan"), runs.index)
    measured = runs[cpu.notna()]
    if measured.empty:
        raise MissingRuns("runs that recorded their CPU time and memory (summary.json resources)")
    rows, numbers = [], []
    untagged = "(untagged)"
    groups = [(str(name), part) for name, part in runs.groupby(runs["report"].replace("", untagged))]
    sweeps = sweeps[sweeps["launcher"].astype(str) != ""]
    sweep_report = sweeps["report"].fillna("").replace("", untagged)
    launchers = sorted(sweeps["launcher"].astype(str).unique())
    for name, part in [*sorted(groups), ("total", runs)]:
        values = {"experiment": name, "runs": len(part), "measured": int(part.index.isin(measured.index).sum())}
        known = measured.loc[measured.index.intersection(part.index)]
        for column, how, header, scale, _ in COLUMNS:
            series = pd.to_numeric(known[column], errors="coerce") if column in known else pd.Series(dtype=float)
            values[header] = float(getattr(series, how)() * scale) if series.notna().any() else float("nan")
        own = sweeps if name == "total" else sweeps[sweep_report == name]
        for launcher in launchers:
            spans = pd.to_numeric(own.loc[own["launcher"] == launcher, "wall_s"], errors="coerce")
            values[f"wall h ({launcher})"] = float(spans.sum() / 3600) if spans.notna().any() else float("nan")
        numbers.append(values)
        rows.append(
            {
                "experiment": name,
                "runs": str(values["runs"]),
                "measured": str(values["measured"]),
                **{header: fmt(values[header], digits) for _, _, header, _, digits in COLUMNS},
                **{f"wall h ({launcher})": fmt(values[f"wall h ({launcher})"], 2) for launcher in launchers},
            }
        )
    note = (
        "CPU h: user + system time of the jobs and of their worker processes (getrusage), in hours; job wall h: "
        "the jobs' wall times summed; fit h: model fitting within them; peak RSS: the largest peak resident memory "
        "of a job (its process and workers). measured: runs that recorded these (older runs of runs.csv did not). "
        "wall h (launcher): the time during which at least one of the experiment's jobs launched that way was "
        "running, summed over its sweeps (joblib, n jobs: n jobs at a time on one machine; dask: a Dask cluster's "
        "workers; basic: Hydra's default launcher, one job after another; single: a run outside a sweep), from "
        "sweeps.csv."
    )
    return Table("table_budget", "What each experiment costs", pd.DataFrame(rows), note, pd.DataFrame(numbers))
