"""Peak memory (RSS) of every extractor on one 50 MB page, each in its own process.

    python -m benchmarks.memory [--mb 50] [--extractors bte,crf] [--timeout 300] [--cap-gb 8] [--store DIR]

The page (:func:`page`) is a generated news-site page of the size asked for (``max_html_chars``'s
default is 50: the largest page a run extracts): a navigation bar, then article sections of
headings, paragraphs, link lists and tables, repeated. Each extractor runs in a fresh process
(fitted first on the tiny hand-made set of :mod:`benchmarks.fuzz` when it learns) extracts the
page as ``boilerbench extract`` does (:func:`boilerbench.api.extract_document`: a page over
``PIECE_ABOVE`` characters piece by piece, :mod:`boilerbench.engine.pieces`), then extracts and
scores it through the runner's per-page path
(:func:`boilerbench.experiments.scoring.evaluate_page`: the whole page parsed, blocks, extraction,
alignment, metrics). Reported: the process's RSS before the page is read (imports and fit), its
peak (the kernel's ``ru_maxrss``; MiB) after extracting the page (what ``boilerbench extract``
needs) and after extracting and scoring it again (what a run needs), the seconds each took, and
the page's error if it became one (the run's, else the extraction's). A
process still running after ``--timeout`` seconds or over ``--cap-gb`` is killed; its peak is then
the largest RSS sampled (every 0.2 s), a lower bound, marked ``>``.

With ``--extract INPUT...`` it measures ``boilerbench extract`` itself instead, over those inputs
(files, folders; ``page`` adds the generated page), with the shipped model (``model``) or each
of ``--extractors`` (an extractor that needs no training, or a model file ``*.bbmodel``), ``-j``
workers: the peak RSS of its largest process (a worker, or the main process with ``-j 1``), its
seconds and its last line (the row counts).

With ``--store DIR`` (``reports/results``) each extractor's row also goes into the results store,
``table_memory.csv``, in place of that extractor's earlier row (with the commit and the extractor's
code version it was measured at), and ``table_memory.md`` is written from it: the table that the
docs quote. A run stopped part-way keeps the rows it finished.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import resource
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
#: The harness's sizes (``python -m benchmarks [--full]``).
QUICK = ["--mb", "1.5", "--extractors", "bte,trafilatura", "--timeout", "120"]
FULL: list[str] = []
#: The store's memory table (``--store``).
TABLE = "table_memory"
#: Its columns: the figures of :func:`child`, then where and at what code they were measured.
COLUMNS = (
    "extractor",
    "page_chars",
    "before_mb",
    "extract_peak_mb",
    "extract_s",
    "peak_mb",
    "s",
    "bound",
    "error",
    "threads",
    "code_version",
    "commit",
    "measured",
)


def page(megabytes: float) -> str:
    """A page of about ``megabytes`` million characters (deterministic)."""
    nav = "<nav>" + " | ".join(f"<a href='/s{i}'>Section {i}</a>" for i in range(20)) + "</nav>"
    parts, size, n = [f"<!DOCTYPE html><html><head><title>Big page</title></head><body>{nav}"], 0, 0
    target = int(megabytes * 1_000_000)
    while size < target:
        n += 1
        section = (
            f"<section><h2>Story {n}: the council and the bridge</h2>"
            + "".join(
                f"<p>Paragraph {k} of story {n}: the council said the old stone bridge over the river will close "
                f"for repairs, and the ferry will carry people and bicycles until September {k}.</p>"
                for k in range(5)
            )
            + "<ul>"
            + "".join(f"<li><a href='/r{n}-{k}'>Related story {n}.{k}</a></li>" for k in range(5))
            + "</ul><table><tr><th>Day</th><th>Ferries</th></tr>"
            + "".join(f"<tr><td>Day {k}</td><td>{k * 7}</td></tr>" for k in range(4))
            + "</table><footer>Share | Comment | Copyright</footer></section>"
        )
        parts.append(section)
        size += len(section)
    parts.append("</body></html>")
    return "".join(parts)


def child(name: str, path: str) -> None:
    """In the measuring process: fit, read the page, extract and score it; print one JSON line."""
    import logging

    sys.path.insert(0, str(PROJECT / "tests"))
    sys.path.insert(0, str(PROJECT))
    from registry import QUICK_FIT

    from benchmarks.common import timed
    from benchmarks.fuzz import fitted
    from boilerbench.api import extract_document
    from boilerbench.datasets.page import Page
    from boilerbench.engine.extraction import run_safely
    from boilerbench.experiments.model_cache import extractor_version
    from boilerbench.experiments.scoring import evaluate_page

    logging.disable(logging.WARNING)
    extractor = fitted(name, QUICK_FIT.get(name, ()))
    print(json.dumps({"code_version": extractor_version(extractor)}), flush=True)  # read even if killed
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    text = Path(path).read_text(encoding="utf-8")
    page = Page(id="big", html=text, gold_text="")
    (extracted, extract_error), extract_s = timed(lambda: run_safely(lambda: extract_document(extractor, page)))
    extract_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    del extracted
    page = Page(id="big", html=text, gold_text="")  # nothing the extraction derived is kept
    result, seconds = timed(lambda: evaluate_page(extractor, page, len(text) + 1))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    figures = {"before_mb": before, "extract_peak_mb": extract_peak, "extract_s": extract_s, "peak_mb": peak}
    print(json.dumps({**figures, "s": seconds, "error": result.row.get("error") or extract_error}))


def measure(name: str, path: Path, timeout: float, cap_mb: float) -> dict:
    """Run :func:`child` for ``name`` in a fresh process, sampling its RSS; its report, or a lower bound."""
    import psutil

    job = subprocess.Popen(
        [sys.executable, __file__, "--child", name, str(path)],
        cwd=PROJECT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    process, sampled, start, why = psutil.Process(job.pid), 0.0, time.monotonic(), ""
    while job.poll() is None:
        try:
            sampled = max(sampled, process.memory_info().rss / 2**20)
        except psutil.NoSuchProcess:
            break
        if time.monotonic() - start > timeout or sampled > cap_mb:
            why = "timeout" if sampled <= cap_mb else "over the cap"
            job.kill()
            break
        time.sleep(0.2)
    out, err = job.communicate()
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    version = lines[0] if lines else {}
    if why or job.returncode != 0:
        error = why or f"exit {job.returncode}: {err.strip()[-200:]}"
        return {**version, "peak_mb": sampled, "bound": True, "error": error}
    return {**version, **lines[-1], "bound": False}


def commit() -> str:
    """The project's git commit (``+`` when the working tree differs from it), or empty outside git."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=PROJECT, capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    head = git("rev-parse", "--short=12", "HEAD")
    return head + ("+" if head and git("status", "--porcelain", "--untracked-files=no") else "")


def table(rows: list[dict[str, str]]) -> str:
    """The markdown table of the store's rows (MiB, seconds; ``>``: a lower bound, the process was
    killed)."""

    def number(row: dict[str, str], key: str, form: str) -> str:
        return f"{float(row[key]):{form}}" if row.get(key) else "-"

    lines = [
        "### Peak memory (RSS, MiB) of each extractor on one generated page",
        "",
        "| extractor | page (M chars) | before the page | extraction peak | extraction s | with scoring peak "
        "| with scoring s | threads | error | commit |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for row in rows:
        bound = ">" if row.get("bound") == "True" else ""
        cells = [
            row["extractor"],
            f"{float(row['page_chars']) / 1e6:.1f}",
            number(row, "before_mb", ",.0f"),
            number(row, "extract_peak_mb", ",.0f"),
            number(row, "extract_s", ",.1f"),
            bound + number(row, "peak_mb", ",.0f"),
            number(row, "s", ",.1f"),
            row.get("threads", ""),
            row.get("error", "").replace("|", "/")[:90],
            row.get("commit", ""),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def store_row(store: Path, row: dict) -> list[dict[str, str]]:
    """Put ``row`` in ``store``'s ``table_memory.csv`` in place of its extractor's earlier row, and
    write ``table_memory.md`` from the file; both atomically. The rows, by extractor."""
    from boilerbench.atomic import atomic_write_text

    path = store / f"{TABLE}.csv"
    old = list(csv.DictReader(path.open(encoding="utf-8"))) if path.is_file() else []
    new = {k: "" if row.get(k) is None else str(row[k]) for k in COLUMNS}
    rows = sorted([r for r in old if r["extractor"] != new["extractor"]] + [new], key=lambda r: r["extractor"])
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(path, out.getvalue())
    atomic_write_text(store / f"{TABLE}.md", table(rows))
    return rows


def extract_child(command: list[str]) -> None:
    """In the measuring process: run ``command`` (``boilerbench extract ...``); print one JSON line."""
    start = time.monotonic()
    done = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, check=False)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # its largest process
    last = (done.stderr.strip().splitlines() or [""])[-1]
    print(json.dumps({"peak_mb": peak, "s": time.monotonic() - start, "rc": done.returncode, "last": last}))


def measure_extract(inputs: list[str], name: str, jobs: int) -> dict:
    """``boilerbench extract`` over ``inputs`` with ``name`` (``model``: the shipped model; a path
    ending in ``.bbmodel``: that model file; else an extractor's config), in a
    fresh process that reports its child's peak (:func:`extract_child`)."""
    chosen = [] if name == "model" else ["--model", name] if name.endswith(".bbmodel") else ["--extractor", name]
    command = [sys.executable, "-m", "boilerbench", "extract", "--quiet", "--format", "jsonl", "-o", os.devnull]
    command += ["-j", str(jobs), *chosen, *inputs]
    done = subprocess.run(
        [sys.executable, __file__, "--extract-child", json.dumps(command)],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        child(argv[1], argv[2])
        return 0
    if argv[:1] == ["--extract-child"]:
        extract_child(json.loads(argv[1]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0, help="page size in millions of characters")
    parser.add_argument("--extractors", default="", help="comma-separated config names (default: all)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per extractor")
    parser.add_argument("--cap-gb", type=float, default=8.0, help="kill a process over this RSS")
    parser.add_argument("--page", type=Path, default=Path("/tmp/boilerbench-memory-page.html"))
    parser.add_argument("--store", type=Path, help="also put each row in this results store (reports/results)")
    parser.add_argument("--extract", nargs="+", metavar="INPUT", help="measure boilerbench extract over these")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="boilerbench extract's workers (--extract)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(PROJECT))
    from benchmarks.common import record
    from boilerbench.configs import extractor_names

    text, head = page(args.mb), commit()
    args.page.write_text(text, encoding="utf-8")
    print(f"page: {len(text):,} characters ({args.page}); {os.cpu_count()} CPUs")
    if args.extract:
        inputs = [str(args.page) if i == "page" else i for i in args.extract]
        print(f"boilerbench extract -j {args.jobs} over {' '.join(inputs)}")
        for name in args.extractors.split(",") if args.extractors else ["model"]:
            r = measure_extract(inputs, name, args.jobs)
            figures = f"{r['peak_mb']:,.0f} MiB, {r['s']:,.1f} s, exit {r['rc']}"
            print(f"{name:<16} peak of its largest process {figures}: {r['last']}")
            record(f"{name}_extract_inputs_peak_mb", r["peak_mb"])
        return 0
    header = ("RSS before MiB", "extraction peak", "extraction s", "with scoring peak", "with scoring s")
    print(f"{'extractor':<16} " + " ".join(header) + "  error")
    for name in args.extractors.split(",") if args.extractors else extractor_names():
        r = measure(name, args.page, args.timeout, args.cap_gb * 1024)
        bound = ">" if r["bound"] else ""
        cells = [f"{r[k]:.0f}" if k in r else "-" for k in ("before_mb", "extract_peak_mb")]
        cells += [f"{r['extract_s']:.1f}" if "extract_s" in r else "-", f"{bound}{r['peak_mb']:.0f}"]
        cells += [f"{r['s']:.1f}" if "s" in r else "-"]
        record(f"{name}_peak_mb", r["peak_mb"])
        if "before_mb" in r:  # what the page added to the process (0: less than fitting and imports took)
            record(f"{name}_extract_mb", r["extract_peak_mb"] - r["before_mb"])
            record(f"{name}_page_mb", r["peak_mb"] - r["before_mb"])
        row = " ".join(f"{c:>{len(h)}}" for c, h in zip(cells, header, strict=True))
        print(f"{name:<16} {row}  {r['error'][:90]}", flush=True)
        if args.store is not None:
            measured = datetime.now(timezone.utc).strftime("%Y-%m-%d")
            threads = os.environ.get("OMP_NUM_THREADS", "")
            store_row(
                args.store,
                {
                    **r,
                    "extractor": name,
                    "page_chars": len(text),
                    "threads": threads,
                    "commit": head,
                    "measured": measured,
                },
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
