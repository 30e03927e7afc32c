"""``python -m boilerbench.reports [RUN_DIRS...] [--out DIR] [--base RUNS_CSV]``: build every table and figure
from the runs under RUN_DIRS (default ``multirun``) into DIR (default ``reports/out``), with an
index and ``runs.csv``, the run rows every table was built from; ``--base`` adds the rows of an
earlier ``runs.csv`` (a run under RUN_DIRS replaces its row), so a table can be rebuilt on a machine
that reran only some of its runs (figures that read per-page rows need the run folders).

``python -m boilerbench.reports compare RUN_A RUN_B [...]`` compares runs page by page
(:mod:`boilerbench.reports.compare`);
``python -m boilerbench.reports inspect RUN_DIR [RUN_DIR2] -o OUT_DIR`` writes the per-page viewer
(:mod:`boilerbench.reports.inspect`)."""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

import matplotlib.pyplot as plt

from boilerbench.atomic import atomic_write_bytes, atomic_write_text
from boilerbench.reports.artefacts import ARTEFACTS
from boilerbench.reports.collect import collect
from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.tables import Table


def build_all(run_dirs: list[str], out: Path, base: str | None = None) -> dict[str, str]:
    """Build every artefact into ``out``; returns each one's status (``written`` or ``missing: ...``)."""
    out.mkdir(parents=True, exist_ok=True)
    runs = collect(run_dirs, base)
    atomic_write_text(out / "runs.csv", runs.to_csv(index=False))
    status: dict[str, str] = {}
    index = [
        "# boilerbench reports",
        "",
        f"Built from the runs under: {', '.join(run_dirs)}{f' and in {base}' if base else ''} ({len(runs)} runs: "
        "[runs.csv](runs.csv)).",
        "",
        "| artefact | files | runs | regenerate |",
        "|---|---|---|---|",
    ]
    for artefact in ARTEFACTS:
        tagged = runs[runs["report"].isin(artefact.experiments)]
        try:
            result = artefact.build(tagged)
        except MissingRuns as err:
            status[artefact.name] = f"missing: {err}"
            index.append(f"| {artefact.name} | **missing**: no {err} | 0 | `{artefact.command}` |")
            continue
        if isinstance(result, Table):
            atomic_write_text(out / f"{artefact.name}.md", result.markdown())
            atomic_write_text(out / f"{artefact.name}.tex", result.latex())
            atomic_write_text(out / f"{artefact.name}.csv", result.csv())
            files = [f"{artefact.name}.md", f"{artefact.name}.tex", f"{artefact.name}.csv"]
        else:
            files = []
            for fmt in ("png", "pdf"):
                buf = io.BytesIO()
                result.savefig(buf, format=fmt, dpi=150)
                atomic_write_bytes(out / f"{artefact.name}.{fmt}", buf.getvalue())
                files.append(f"{artefact.name}.{fmt}")
            plt.close(result)
        status[artefact.name] = "written"
        links = ", ".join(f"[{f}]({f})" for f in files)
        index.append(f"| {artefact.name} | {links} | {len(tagged)} | `{artefact.command}` |")
    index += ["", "Every artefact's runs: `make reports` (all experiments, then this command)."]
    atomic_write_text(out / "README.md", "\n".join(index) + "\n")
    return status


def main(argv: list[str]) -> int:
    if argv and argv[0] in SUBCOMMANDS:
        return SUBCOMMANDS[argv[0]](argv[1:])
    parser = argparse.ArgumentParser(prog="python -m boilerbench.reports", description=__doc__.splitlines()[0])
    parser.add_argument("run_dirs", nargs="*", default=["multirun"], help="folders holding runs (searched recursively)")
    parser.add_argument("--out", default="reports/out", help="where the tables, figures and index go")
    parser.add_argument("--base", help="an earlier build's runs.csv: its rows for the runs not under RUN_DIRS")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    missing_dirs = [d for d in args.run_dirs if not Path(d).is_dir()]
    if missing_dirs:
        print(f"error: no such run folder: {', '.join(missing_dirs)}", file=sys.stderr)
        return 2
    if args.base and not Path(args.base).is_file():
        print(f"error: no such runs file: {args.base}", file=sys.stderr)
        return 2
    status = build_all(args.run_dirs, Path(args.out), args.base)
    for name, state in status.items():
        print(f"  {name:<26} {state}")
    print(f"reports in {args.out} ({time.perf_counter() - start:.1f} s)")
    return 0


def _compare(argv: list[str]) -> int:
    from boilerbench.reports.compare import main as compare_main

    return compare_main(argv)


def _inspect(argv: list[str]) -> int:
    from boilerbench.reports.inspect import main as inspect_main

    return inspect_main(argv)


#: ``python -m boilerbench.reports NAME ...``: the subcommands (a run folder cannot be named like them).
SUBCOMMANDS = {"compare": _compare, "inspect": _inspect}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
