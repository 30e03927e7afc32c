"""Every table and figure of the store built from run rows into one folder, with its index
(``README.md``), ``runs.csv`` and ``sweeps.csv``: what ``boilerbench report`` writes."""

from __future__ import annotations

import io
from pathlib import Path

import matplotlib.pyplot as plt

from boilerbench.atomic import atomic_write_bytes, atomic_write_text
from boilerbench.reports.artefacts import ARTEFACTS
from boilerbench.reports.collect import gather, has_pages
from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.provenance import with_provenance
from boilerbench.reports.tables import Table

#: A figure's files: PNG for pages, PDF for papers, SVG for the web (scales, diffs as text).
FIGURE_FORMATS = ("png", "pdf", "svg")

#: The metadata key that would stamp each format with the time it was written.
_DATE_KEY = {"pdf": "CreationDate", "svg": "Date"}


def figure_bytes(figure: plt.Figure, fmt: str) -> bytes:
    """``figure`` as a ``fmt`` file, the same bytes for the same figure: no creation date, and
    SVG's element ids salted with a constant rather than a random one."""
    buf = io.BytesIO()
    metadata = {_DATE_KEY[fmt]: None} if fmt in _DATE_KEY else None
    with plt.rc_context({"svg.hashsalt": "boilerbench"}):
        figure.savefig(buf, format=fmt, dpi=150, metadata=metadata)
    return buf.getvalue()


def shown_folder(path: str) -> str:
    """``path`` as the index names it: relative to the working directory when inside it, else
    the folder's own name (a published index says which runs, not where one machine kept them)."""
    resolved = Path(path).resolve()
    return resolved.relative_to(Path.cwd()).as_posix() if resolved.is_relative_to(Path.cwd()) else resolved.name


def build_all(run_dirs: list[str], out: Path, base: str | None = None) -> dict[str, str]:
    """Build every artefact into ``out``; returns each one's status (``written`` or ``missing: ...``)."""
    out.mkdir(parents=True, exist_ok=True)
    runs, sweeps = gather(run_dirs, base)
    atomic_write_text(out / "runs.csv", runs.to_csv(index=False))
    atomic_write_text(out / "sweeps.csv", sweeps.to_csv(index=False))
    status: dict[str, str] = {}
    absent = sum(1 for _, run in runs.iterrows() if not has_pages(run))
    if absent:
        # the tables still build from the rows, without the paired tests' marks of those runs
        status["page rows"] = (
            f"{absent} of {len(runs)} runs' pages.csv neither on this machine nor archived: the tables leave their "
            "significance marks out and the figures that read pages are missing"
        )
    index = [
        "# boilerbench reports",
        "",
        f"Built from the runs under: {', '.join(map(shown_folder, run_dirs))}"
        f"{f' and in {shown_folder(base)}' if base else ''} ({len(runs)} runs: "
        "[runs.csv](runs.csv); the sweeps they ran in: [sweeps.csv](sweeps.csv)).",
        "",
        "| artefact | files | runs | regenerate |",
        "|---|---|---|---|",
    ]
    for artefact in ARTEFACTS:
        tagged = artefact.runs(runs)
        try:
            result = artefact.build(tagged, sweeps) if artefact.reads_sweeps else artefact.build(tagged)
        except MissingRuns as err:
            status[artefact.name] = f"missing: {err}"
            index.append(f"| {artefact.name} | **missing**: no {err} | 0 | `{artefact.command}` |")
            continue
        if isinstance(result, Table):
            atomic_write_text(out / f"{artefact.name}.md", result.markdown())
            atomic_write_text(out / f"{artefact.name}.tex", result.latex())
            named = artefact.labels(tagged) if artefact.labels is not None else tagged
            atomic_write_text(out / f"{artefact.name}.csv", with_provenance(result.rows(), named).to_csv(index=False))
            files = [f"{artefact.name}.md", f"{artefact.name}.tex", f"{artefact.name}.csv"]
        else:
            files = []
            for fmt in FIGURE_FORMATS:
                atomic_write_bytes(out / f"{artefact.name}.{fmt}", figure_bytes(result, fmt))
                files.append(f"{artefact.name}.{fmt}")
            plt.close(result)
        status[artefact.name] = "written"
        links = ", ".join(f"[{f}]({f})" for f in files)
        index.append(f"| {artefact.name} | {links} | {len(tagged)} | `{artefact.command}` |")
    index += ["", "Every artefact's runs: `make reports` (the experiments it needs, then this command)."]
    atomic_write_text(out / "README.md", "\n".join(index) + "\n")
    return status
