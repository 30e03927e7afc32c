"""``boilerbench extract``: run an extractor, or a trained model file, on your own pages.

    boilerbench extract [--extractor NAME | --model PATH] INPUT... [-o OUT] [--format text|jsonl]
                        [-j N | --cluster ADDRESS]

INPUT is an HTML file, a folder (every file under it, recursively, hidden ones skipped, in
sorted order), ``-`` (one page on standard input), a JSON Lines file (``.jsonl``/``.ndjson``: one
object a line with ``html`` and optional ``id`` and ``url``) or a WARC file (``.warc``,
``.warc.gz``: its HTML responses, read with FastWARC). Pages are decoded with the project's
encoding detector (a WARC record's HTTP charset first).

``-j N`` extracts in N local processes; ``--cluster ADDRESS`` on a Dask cluster
(:mod:`boilerbench.distributed`). Output keeps the input order. ``--format jsonl`` writes one
object per page (``id``, ``url``, ``text``, ``error``, ``ms``); ``--format text`` writes the text
of a single page as it is, and of several pages each after a ``==> ID <==`` line. A page that
fails (an empty or binary file, an unreadable record, an extractor error) is reported on
standard error and in the ``error`` field, and the other pages go on. Exit status: 0 when every
page succeeded, 1 when some failed, 2 on a usage error (an unknown extractor lists the valid
ones; a missing input; a model file made by incompatible versions).

This is the top floor: it imports the runner's pieces; nothing imports it.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import IO, Any

from tqdm import tqdm

from boilerbench.datasets.encoding import decode_bytes
from boilerbench.datasets.page import Page
from boilerbench.errors import BoilerbenchError, import_optional
from boilerbench.experiments.model_file import load_model_file
from boilerbench.extractors.compose import extractor_names, make_extractor

JSONL_SUFFIXES = (".jsonl", ".ndjson")
WARC_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz")
HTML_TYPES = ("text/html", "application/xhtml+xml")
#: A file is binary, not HTML, when more than this share of its first 8 KB are control bytes.
BINARY_SHARE = 0.05
_CONTROL_BYTES = bytes([*range(0, 9), *range(14, 32), 127])


class UsageError(BoilerbenchError):
    """A wrong command line: exit status 2."""


@dataclass
class Item:
    """One input page: raw bytes (or an error found while reading it)."""

    id: str
    data: bytes = b""
    url: str | None = None
    charset: str | None = None
    error: str = ""


def looks_binary(data: bytes) -> bool:
    """Whether ``data`` looks like a binary file: many control bytes in its first 8 KB (a UTF-16
    page, which has NUL bytes, starts with a byte-order mark and is not binary)."""
    head = data[:8192]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    return controls > BINARY_SHARE * len(head)


def _jsonl_items(path: Path) -> Iterator[Item]:
    with path.open("rb") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            fallback = f"{path}:{number}"
            try:
                record = json.loads(line)
                html = record["html"]
                if not isinstance(html, str):
                    raise TypeError("'html' is not a string")
            except (ValueError, KeyError, TypeError) as err:
                yield Item(fallback, error=f"bad JSON line: {type(err).__name__}: {err}")
                continue
            yield Item(str(record.get("id", fallback)), html.encode("utf-8"), record.get("url"), "utf-8")


def _warc_items(path: Path) -> Iterator[Item]:
    warc = import_optional("fastwarc.warc", "fastwarc", 'install it with: pip install -e ".[warc]"')
    records = warc.ArchiveIterator(open(path, "rb"), record_types=warc.WarcRecordType.response, parse_http=True)
    for number, record in enumerate(records, start=1):
        url = record.headers.get("WARC-Target-URI")
        fallback = f"{path}#{number}"
        if (record.http_content_type or "").lower() not in HTML_TYPES:
            continue
        try:
            yield Item(record.record_id or fallback, record.reader.read(), url, record.http_charset)
        except Exception as err:  # a truncated record: report it, read on
            yield Item(record.record_id or fallback, url=url, error=f"unreadable WARC record: {err}")


def _file_items(path: Path) -> Iterator[Item]:
    name = path.name.lower()
    if name.endswith(JSONL_SUFFIXES):
        yield from _jsonl_items(path)
    elif name.endswith(WARC_SUFFIXES):
        yield from _warc_items(path)
    else:
        try:
            yield Item(str(path), path.read_bytes())
        except OSError as err:
            yield Item(str(path), error=f"cannot read: {err}")


def _folder_files(folder: Path) -> list[Path]:
    files = (p for p in folder.rglob("*") if p.is_file())
    return sorted(p for p in files if not any(part.startswith(".") for part in p.relative_to(folder).parts))


def iter_items(inputs: Sequence[str], stdin: IO[bytes] | None = None) -> Iterator[Item]:
    """Every input page in order (paths are checked first by :func:`check_inputs`)."""
    for spec in inputs:
        if spec == "-":
            yield Item("-", (stdin or sys.stdin.buffer).read())
            continue
        path = Path(spec)
        for file in _folder_files(path) if path.is_dir() else [path]:
            yield from _file_items(file)


def check_inputs(inputs: Sequence[str]) -> None:
    """Raise :class:`UsageError` naming the inputs that do not exist."""
    missing = [s for s in inputs if s != "-" and not Path(s).exists()]
    if missing:
        raise UsageError(f"no such input: {', '.join(missing)}")


# -- the work, in this process or in each worker -----------------------------------------------

_extractor: Any = None


def load_extractor(extractor: str | None, model: str | None) -> Any:
    """The extractor named on the command line, or the one in a model file."""
    if model is not None:
        if not Path(model).is_file():
            raise UsageError(f"no such model file: {model}")
        return load_model_file(model)[0]
    assert extractor is not None
    names = extractor_names()
    if extractor not in names:
        raise UsageError(f"unknown extractor {extractor!r}; choose one of: {', '.join(names)}")
    built = make_extractor(extractor)
    if getattr(built, "learns", True):
        raise UsageError(
            f"extractor {extractor!r} learns from training pages: train it and save it with "
            f"'python run.py extractor={extractor} ... save_model=PATH', then use --model PATH"
        )
    return built


def _init_worker(extractor: str | None, model: str | None) -> None:
    global _extractor
    _extractor = load_extractor(extractor, model)


def process(item: Item, extractor: Any = None) -> dict:
    """Extract one page with ``extractor`` (default: this process's, set by the worker
    initializer): a JSONL row (``id``, ``url``, ``text``, ``error``, ``ms``). An item that
    carries an error is not extracted: its row reports the error."""
    start = time.perf_counter()
    text, error = "", item.error
    if not error:
        if not item.data.strip():
            error = "empty page"
        elif looks_binary(item.data):
            error = "binary file, not HTML"
    if not error:
        try:
            html = decode_bytes(item.data, (item.charset,) if item.charset else ())
            text = (extractor or _extractor).extract(Page(item.id, html, "", item.url)).text
        except Exception as err:  # one bad page never stops the others
            error = f"{type(err).__name__}: {err}"[:500]
    return {"id": item.id, "url": item.url, "text": text, "error": error, "ms": 1000 * (time.perf_counter() - start)}


def run_pages(
    items: Iterable[Item], jobs: int, extractor: str | None, model: str | None, loaded: Any = None
) -> Iterator[dict]:
    """The rows of ``items`` in input order, extracted by ``jobs`` worker processes (1: in this
    process, with the ``loaded`` extractor when given)."""
    global _extractor
    if jobs <= 1:
        _extractor = loaded if loaded is not None else load_extractor(extractor, model)
        yield from map(process, items)
        return
    context = multiprocessing.get_context("spawn")  # no inherited parser or library state
    with context.Pool(jobs, initializer=_init_worker, initargs=(extractor, model)) as pool:
        iterator = iter(items)
        while batch := list(islice(iterator, 32 * jobs)):  # bounded memory on large inputs
            yield from pool.imap(process, batch, chunksize=4)


# -- output ------------------------------------------------------------------------------------


def write_rows(rows: Iterable[dict], out: IO[str], fmt: str, several: bool, progress: bool) -> tuple[int, int]:
    """Write the rows; report failures on stderr. Returns (pages, failures)."""
    pages = failures = 0
    for row in tqdm(rows, desc="extract", unit="page", disable=not progress, file=sys.stderr):
        pages += 1
        if row["error"]:
            failures += 1
            tqdm.write(f"error: {row['id']}: {row['error']}", file=sys.stderr)
        if fmt == "jsonl":
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
        elif not row["error"]:
            out.write(f"==> {row['id']} <==\n{row['text']}\n\n" if several else row["text"] + "\n")
    return pages, failures


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="boilerbench", description="Main-content extraction from web pages.")
    commands = top.add_subparsers(dest="command", required=True)
    ex = commands.add_parser(
        "extract",
        help="extract the main text of HTML pages",
        description="Extract the main text of HTML pages with an extractor or a trained model file.",
    )
    which = ex.add_mutually_exclusive_group(required=True)
    which.add_argument("--extractor", help="an extractor config name that needs no training (e.g. trafilatura)")
    which.add_argument("--model", help="a model file written by 'python run.py ... save_model=PATH'")
    ex.add_argument("inputs", nargs="+", metavar="INPUT", help="HTML files, folders, - (stdin), .jsonl or .warc[.gz]")
    ex.add_argument("-o", "--output", help="output file (default: standard output)")
    ex.add_argument("--format", choices=("text", "jsonl"), default="text", help="output format (default: text)")
    ex.add_argument("-j", "--jobs", type=int, default=1, help="worker processes (default: 1)")
    ex.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="extract on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786); needs the dask extra",
    )
    ex.add_argument("--quiet", action="store_true", help="no progress bar")
    cache = commands.add_parser("cache", help="check the artefact and model caches")
    cache.add_argument("action", choices=("verify",), help="verify: check every entry, remove the bad ones")
    cache.add_argument("--dir", type=Path, default=Path(".cache/boilerbench"), help="the cache (paths.cache_dir)")
    cache.add_argument("--models", type=Path, default=Path("models"), help="the model cache (paths.model_dir)")
    cache.add_argument("--dry-run", action="store_true", help="report the bad entries, remove nothing")
    return top


def verify_caches(args: argparse.Namespace) -> int:
    """``boilerbench cache verify``: one line per bad entry, a total; exit status 1 when any was bad."""
    from boilerbench.cache_verify import verify

    report = verify(args.dir, args.models, remove=not args.dry_run)
    for path, problem in report.bad:
        print(f"{'bad' if args.dry_run else 'removed'}: {path}: {problem}")
    print(f"{report.checked} entries checked, {len(report.bad)} bad ({args.dir}, {args.models})")
    return 1 if report.bad else 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "cache":
        return verify_caches(args)
    try:
        if args.jobs < 1:
            raise UsageError(f"-j must be at least 1, got {args.jobs}")
        check_inputs(args.inputs)
        loaded = load_extractor(args.extractor, args.model)  # a bad name or model file fails before any work
        several = len(args.inputs) > 1 or any(
            s != "-" and (Path(s).is_dir() or s.lower().endswith(JSONL_SUFFIXES + WARC_SUFFIXES)) for s in args.inputs
        )
        out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
        try:
            if args.cluster:
                from boilerbench.distributed import run_on_cluster

                rows = run_on_cluster(iter_items(args.inputs), args.cluster, args.extractor, args.model)
            else:
                rows = run_pages(iter_items(args.inputs), args.jobs, args.extractor, args.model, loaded)
            pages, failures = write_rows(rows, out, args.format, several, not args.quiet and sys.stderr.isatty())
        finally:
            if out is not sys.stdout:
                out.close()
    except BoilerbenchError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"{pages - failures} of {pages} pages extracted, {failures} failed", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
