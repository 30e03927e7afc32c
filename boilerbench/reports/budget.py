"""``table_budget``: what each experiment costs to regenerate, from ``runs.csv``: CPU-hours (user
+ system time of every job and its worker processes), the largest peak memory of a job, and the
jobs' wall time summed (the experiment's own wall time is shorter when its jobs run side by
side: ``make reports`` prints it per experiment). Read from each run's ``summary.json``
``resources`` (:mod:`boilerbench.experiments.resources`); runs recorded before those were kept
count in ``runs`` but not in the sums (``measured``)."""

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


def table_budget(runs: pd.DataFrame) -> Table:
    """One row per experiment (the runs' ``report`` tag) and a total row."""
    cpu = pd.to_numeric(runs["cpu_s"], errors="coerce") if "cpu_s" in runs else pd.Series(float("nan"), runs.index)
    measured = runs[cpu.notna()]
    if measured.empty:
        raise MissingRuns("runs that recorded their CPU time and memory (summary.json resources)")
    rows, numbers = [], []
    groups = [(str(name), part) for name, part in runs.groupby(runs["report"].replace("", "(untagged)"))]
    for name, part in [*sorted(groups), ("total", runs)]:
        values = {"experiment": name, "runs": len(part), "measured": int(part.index.isin(measured.index).sum())}
        known = measured.loc[measured.index.intersection(part.index)]
        for column, how, header, scale, _ in COLUMNS:
            series = pd.to_numeric(known[column], errors="coerce") if column in known else pd.Series(dtype=float)
            values[header] = float(getattr(series, how)() * scale) if series.notna().any() else float("nan")
        numbers.append(values)
        rows.append(
            {
                "experiment": name,
                "runs": str(values["runs"]),
                "measured": str(values["measured"]),
                **{header: fmt(values[header], digits) for _, _, header, _, digits in COLUMNS},
            }
        )
    note = (
        "CPU h: user + system time of the jobs and of their worker processes (getrusage), in hours; job wall h: "
        "the jobs' wall times summed; fit h: model fitting within them; peak RSS: the largest peak resident memory "
        "of a job (its process and workers). measured: runs that recorded these (older runs of runs.csv did not)."
    )
    return Table("table_budget", "What each experiment costs", pd.DataFrame(rows), note, pd.DataFrame(numbers))
