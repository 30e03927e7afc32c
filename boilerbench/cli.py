"""``boilerbench extract``: extract the main text of your own pages, with the default model, a
trained model file or an extractor that needs no training.

    boilerbench extract [--model PATH | --extractor NAME [--set KEY=VALUE]...] INPUT...
                        [-o FILE | -o DIR/] [--format text|markdown|jsonl|csv] [--with-metadata]
                        [-j N] [--page-timeout SECONDS] [--cluster ADDRESS]
    boilerbench extract --list-extractors

INPUT is an HTML file, a folder, ``-`` (one page on standard input), a JSON Lines file
(``.jsonl``/``.ndjson``: one object a line with ``html`` and optional ``id`` and ``url``) or a
WARC file (``.warc``, ``.warc.gz``: its response records, read with FastWARC); a ``.gz`` file is
read through gzip. From a folder (recursively, hidden files left out, in sorted order) only
HTML files (``.html``, ``.htm``, ``.xhtml``, and gzipped), WARC and JSON Lines files are read:
every other file is a ``skipped`` row with its reason, as is the run's own output file. URLs are
refused: nothing is fetched. With neither ``--model`` nor ``--extractor`` the model shipped with
the package (:data:`boilerbench.api.DEFAULT_MODEL`) is used.

Every input ends as a row: ``extracted`` (with its text), ``empty`` (the extractor found no
main text), ``failed`` (its ``error``: an unreadable or binary file, a truncated WARC, an
extractor error, a worker process that died twice on it: ``WorkerCrashed``, a page that ran past
``--page-timeout``: ``PageTimeout``) or ``skipped`` (its
reason: a non-HTML file or WARC response). Rows keep the input order. Warnings (an extractor that
returns nothing on a Chinese page, ensemble members that refused a page for its size) are in
the row and on standard error. The last line on standard error counts extracted / empty /
failed / skipped.

Output: standard output or ``-o FILE``; ``-o DIR/`` (an existing folder, or a name ending in
``/`` whose parent exists) writes one file per page, named after its input (``a/b.html.gz`` ->
``DIR/a/b.txt``; a WARC or JSON Lines record -> ``DIR/<file>/<n>.txt``). ``--format text``
writes a single page's text as it is and several pages each after a ``==> ID <==`` line;
``markdown`` the same in markdown; ``jsonl`` one object per row; ``csv`` one line per row.

Exit status: 0 when no page failed, 1 when some did, 2 on a usage or environment error (one line
on standard error: a missing input or model file, an unreadable model file, a bad option, an
unreachable cluster), 130 on Ctrl-C (after writing every finished row and the counts).

``-j N`` extracts in N forked worker processes, the pool that ``boilerbench run n_workers=N`` uses
(:mod:`boilerbench.engine.pool`), each reading its own files: a killed worker is replaced and its
page run again, and a page whose worker dies twice is reported as ``WorkerCrashed``;
``--page-timeout SECONDS`` kills the worker of a page that takes longer (the page is reported as
``PageTimeout``, the others go on; the pages then run in a worker process even without ``-j``).
``--cluster ADDRESS`` extracts on a Dask cluster (:mod:`boilerbench.distributed`) with the same
per-page function (:func:`boilerbench.page_rows.process`). This is the top floor: it imports the
runner's pieces; nothing imports it.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import re
import signal
import sys
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from boilerbench.errors import ArgumentParser, BoilerbenchError, UsageError, describe, import_optional
from boilerbench.page_rows import NEEDS_GOLD, Item, Job, load_extractor, run_pages, with_bytes

JSONL_SUFFIXES = (".jsonl", ".ndjson")
WARC_SUFFIXES = (".warc", ".arc")
HTML_SUFFIXES = (".html", ".htm", ".xhtml")
HTML_TYPES = ("text/html", "application/xhtml+xml")
FORMATS = ("text", "markdown", "jsonl", "csv")
EXTENSIONS = {"text": ".txt", "markdown": ".md", "jsonl": ".json", "csv": ".csv"}
STATUSES = ("extracted", "empty", "failed", "skipped")
METADATA_FIELDS = ("title", "author", "date", "language", "sitename", "canonical_url", "page_type")
CSV_FIELDS = ("id", "url", "status", "text", "error", "skipped", "warnings", "ms")


def _kind(path: Path) -> str | None:
    """``html``, ``jsonl`` or ``warc`` from the file name (a ``.gz`` suffix looked through), else None."""
    name = path.name.lower().removesuffix(".gz")
    for kind, suffixes in (("html", HTML_SUFFIXES), ("jsonl", JSONL_SUFFIXES), ("warc", WARC_SUFFIXES)):
        if name.endswith(suffixes):
            return kind
    return None


def _stem(path: Path) -> str:
    """The file name without its format suffixes (``a.html.gz`` -> ``a``)."""
    name = path.name
    for suffix in (".gz", *HTML_SUFFIXES, *JSONL_SUFFIXES, *WARC_SUFFIXES):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name or path.name


def _jsonl_items(path: Path, name: str) -> Iterator[Item]:
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    with opener(path, "rb") as lines:
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
                yield Item(fallback, error=f"bad JSON line: {describe(err)}", name=f"{name}/{number}")
                continue
            page_id = str(record.get("id", fallback))
            yield Item(page_id, html.encode("utf-8"), record.get("url"), "utf-8", name=f"{name}/{number}")


def _sniff_html(data: bytes) -> bool:
    head = data[:1024].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html", b"<?xml")) or b"<html" in head


def _gzip_complete(path: Path) -> bool:
    """Whether a gzip file ends where its last member ends (a truncated download does not)."""
    decompressor = zlib.decompressobj(wbits=47)
    with path.open("rb") as raw:
        while chunk := raw.read(1 << 20):
            while chunk:
                decompressor.decompress(chunk)
                chunk = decompressor.unused_data
                if chunk or decompressor.eof:
                    if not chunk:
                        break
                    decompressor = zlib.decompressobj(wbits=47)
    return decompressor.eof


def _warc_records(path: Path, name: str, stream: IO[bytes]) -> Iterator[Item]:
    warc = import_optional("fastwarc.warc", "fastwarc", 'install it with: pip install -e ".[warc]"')
    records = warc.ArchiveIterator(stream, record_types=warc.WarcRecordType.response, parse_http=True)
    for number, record in enumerate(records, start=1):
        url = record.headers.get("WARC-Target-URI")
        page_id, out = record.record_id or f"{path}#{number}", f"{name}/{number}"
        content_type = (record.http_content_type or "").lower()
        try:
            data = record.reader.read()
        except Exception as err:  # an unreadable record: report it, read on
            yield Item(page_id, url=url, error=f"unreadable WARC record: {err}", name=out)
            continue
        if len(data) < record.content_length:
            yield Item(page_id, url=url, error="truncated WARC record", name=out)
        elif content_type in HTML_TYPES or (not content_type and _sniff_html(data)):
            yield Item(page_id, data, url, record.http_charset, name=out)
        else:
            reason = f"not HTML ({content_type})" if content_type else "no Content-Type and not HTML"
            yield Item(page_id, url=url, skipped=f"WARC response {reason}", name=out)


def _warc_items(path: Path, name: str) -> Iterator[Item]:
    """The response records of a WARC file; a file cut short (a truncated download) ends with a
    failed row, since its later records are lost."""
    truncated = path.name.lower().endswith(".gz") and not _gzip_complete(path)
    try:
        with path.open("rb") as stream:
            yield from _warc_records(path, name, stream)
    except OSError as err:  # fastwarc's "Invalid WARC header" where the file was cut
        if not truncated:
            yield Item(str(path), error=f"unreadable WARC file: {err}", name=name)
    if truncated:
        yield Item(str(path), error="truncated .gz file: the records after the last one read are lost", name=name)


def _file_items(path: Path, name: str, deferred: bool) -> Iterator[Item]:
    kind = _kind(path)
    if kind == "jsonl":
        yield from _jsonl_items(path, name)
    elif kind == "warc":
        yield from _warc_items(path, name)
    else:
        item = Item(str(path), name=name, path=str(path))
        yield item if deferred else with_bytes(item)


@dataclass
class Source:
    """One input file (or ``-``), with its output name, or why it is skipped."""

    path: Path | None
    name: str
    skipped: str = ""


def _folder_files(folder: Path) -> list[Path]:
    files = (p for p in folder.rglob("*") if p.is_file())
    return sorted(p for p in files if not any(part.startswith(".") for part in p.relative_to(folder).parts))


def list_sources(inputs: Sequence[str], exclude: Path | None = None) -> list[Source]:
    """Every input file in order; a folder's files that are not pages, and ``exclude`` (the
    run's output), as skipped sources."""
    sources = []
    for spec in inputs:
        if spec == "-":
            sources.append(Source(None, "stdin"))
            continue
        path = Path(spec)
        files = [(p, str(p.relative_to(path).parent / _stem(p))) for p in _folder_files(path)] if path.is_dir() else []
        for file, name in files or [(path, _stem(path))]:
            if exclude is not None and (file.resolve() == exclude or exclude in file.resolve().parents):
                sources.append(Source(file, name, "the output of this run"))
            elif path.is_dir() and _kind(file) is None:
                sources.append(
                    Source(file, name, f"not an HTML, WARC or JSON Lines file ({file.suffix or 'no suffix'})")
                )
            else:
                sources.append(Source(file, name))
    return sources


def iter_items(sources: Sequence[Source], stdin: IO[bytes] | None = None, deferred: bool = False) -> Iterator[Item]:
    """Every input page of ``sources`` in order; ``deferred``: an HTML file's bytes are read where
    it is extracted (its item carries the path), so that the workers of ``-j N`` read their own
    pages instead of the main process reading each and copying it to them through a pipe (a
    Dask worker on another machine may not see the file: it gets the bytes)."""
    for source in sources:
        if source.path is None:
            yield Item("-", (stdin or sys.stdin.buffer).read(), name=source.name)
        elif source.skipped:
            yield Item(str(source.path), skipped=source.skipped, name=source.name)
        else:
            yield from _file_items(source.path, source.name, deferred)


def check_inputs(inputs: Sequence[str]) -> None:
    """Raise :class:`UsageError` for a URL (nothing is fetched) or inputs that do not exist."""
    urls = [s for s in inputs if re.match(r"^[a-z][a-z0-9+.-]*://", s, re.IGNORECASE)]
    if urls:
        raise UsageError(f"URLs are not fetched (no network access): {urls[0]}; save the page and give its file")
    missing = [s for s in inputs if s != "-" and not Path(s).exists()]
    if missing:
        raise UsageError(f"no such input: {', '.join(missing)}")


# -- output ------------------------------------------------------------------------------------


class Output:
    """Where rows go: one stream (standard output or ``-o FILE``), or one file per page (``-o DIR/``)."""

    def __init__(self, target: str | None, fmt: str, several: bool, metadata: bool) -> None:
        self.fmt, self.several, self.metadata = fmt, several, metadata
        self.folder: Path | None = None
        self.stream: IO[str] = sys.stdout
        self.used: Counter[str] = Counter()
        self.csv: Any = None
        if target is None:
            pass
        elif Path(target).is_dir() or target.endswith(("/", "\\")):
            self.folder = self._folder(target)
        else:
            path = Path(target)
            if not path.parent.is_dir():
                raise UsageError(f"-o {target}: no folder {path.parent}")
            self.stream = open(path, "w", encoding="utf-8", newline="")
        if self.fmt == "csv" and self.folder is None:
            self.csv = self._csv_writer(self.stream)

    @staticmethod
    def _folder(target: str) -> Path:
        folder = Path(target)
        if folder.exists() and not folder.is_dir():
            raise UsageError(f"-o {target}: a file is there, not a folder")
        if not folder.parent.is_dir():
            raise UsageError(f"-o {target}: no folder {folder.parent} to make it in")
        folder.mkdir(exist_ok=True)
        return folder

    def path(self) -> Path | None:
        """The output file or folder, resolved (never read as input)."""
        if self.folder is not None:
            return self.folder.resolve()
        return Path(self.stream.name).resolve() if self.stream is not sys.stdout else None

    def _csv_writer(self, stream: IO[str]) -> Any:
        writer = csv.DictWriter(stream, CSV_FIELDS + (METADATA_FIELDS if self.metadata else ()), extrasaction="ignore")
        writer.writeheader()
        return writer

    def _record(self, row: dict) -> dict:
        record = {k: v for k, v in row.items() if k not in ("name", "markdown")}
        if self.fmt == "csv":
            record["warnings"] = "; ".join(row["warnings"])
        return record

    def _body(self, row: dict) -> str:
        from boilerbench.api import with_header

        body = row.get("markdown", "") if self.fmt == "markdown" else row["text"]
        return with_header({k: row.get(k) for k in METADATA_FIELDS}, body) if self.metadata else body

    def write(self, row: dict) -> None:
        if self.folder is not None:
            if row["status"] in ("extracted", "empty"):
                self._write_file(row)
        elif self.fmt == "jsonl":
            self.stream.write(json.dumps(self._record(row), ensure_ascii=False) + "\n")
        elif self.fmt == "csv":
            self.csv.writerow(self._record(row))
        elif row["status"] == "extracted":
            body = self._body(row)
            self.stream.write(f"==> {row['id']} <==\n{body}\n\n" if self.several else body + "\n")

    def _write_file(self, row: dict) -> None:
        assert self.folder is not None
        name = row["name"] or "page"
        self.used[name] += 1
        if self.used[name] > 1:
            name = f"{name}-{self.used[name]}"
        path = self.folder / (name + EXTENSIONS[self.fmt])
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as out:
            if self.fmt == "jsonl":
                out.write(json.dumps(self._record(row), ensure_ascii=False) + "\n")
            elif self.fmt == "csv":
                self._csv_writer(out).writerow(self._record(row))
            else:
                out.write(self._body(row) + "\n")

    def close(self) -> None:
        if self.stream is not sys.stdout:
            self.stream.close()
        else:
            self.stream.flush()


@contextmanager
def _deferred_interrupt() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) back for the duration of the block, where the platform can."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def write_rows(rows: Iterable[dict], output: Output, progress: bool, total: int | None, counts: Counter[str]) -> None:
    """Write the rows, counting them by status in ``counts``; report failures and warnings on stderr."""
    from tqdm import tqdm

    with tqdm(total=total, desc="extract", unit="page", disable=not progress, file=sys.stderr) as bar:
        for row in rows:
            with _deferred_interrupt():  # a row is written and counted, or neither
                output.write(row)
                counts[row["status"]] += 1
            if row["error"]:
                tqdm.write(f"error: {row['id']}: {row['error']}", file=sys.stderr)
            for warning in row["warnings"]:
                tqdm.write(f"warning: {row['id']}: {warning}", file=sys.stderr)
            bar.update()


def summary(counts: Counter[str]) -> str:
    """The last line: pages by status."""
    total = sum(counts.values())
    return f"{total} pages: " + ", ".join(f"{counts[s]} {s}" for s in STATUSES)


def list_extractors() -> str:
    """One line per extractor config: whether it runs as it is or needs training, and the shipped
    models that hold it fitted (:data:`boilerbench.api.SHIPPED_MODELS`)."""
    from boilerbench.api import SHIPPED_MODELS
    from boilerbench.configs import extractor_names, make_extractor
    from boilerbench.extractors.base import tags

    lines = []
    for name in extractor_names():
        if name in NEEDS_GOLD:
            lines.append(f"{name}\tneeds gold text (evaluation only)")
            continue
        try:
            learns = tags(make_extractor(name)).learns
        except BoilerbenchError as err:
            lines.append(f"{name}\tunavailable: {err}")
            continue
        if not learns:
            lines.append(f"{name}\tready (--extractor {name})")
            continue
        fitted = "".join(
            f" or --model {model}" for model, shipped in SHIPPED_MODELS.items() if shipped.extractor == name
        )
        lines.append(f"{name}\tneeds training (--model PATH{fitted})")
    return "\n".join(lines)


def _seconds(value: str) -> float:
    """A positive number of seconds (``--page-timeout``)."""
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {value!r}")
    return seconds


def parser() -> argparse.ArgumentParser:
    """The options of ``boilerbench extract``."""
    ex = ArgumentParser(
        prog="boilerbench extract",
        description="Extract the main text of HTML pages with the default model, a model file or an extractor.",
    )
    which = ex.add_mutually_exclusive_group()
    which.add_argument("--extractor", help="an extractor that needs no training (see --list-extractors)")
    which.add_argument(
        "--model",
        help="a model file from 'boilerbench run ... save_model=PATH', or a shipped model: 'default' (the fast "
        "stack, used without --model), 'accurate' (the cascade) or 'multilingual' (the arbiter of the fast stack "
        "and Readability)",
    )
    ex.add_argument(
        "inputs", nargs="*", metavar="INPUT", help="HTML files (.gz too), folders, - (stdin), .jsonl, .warc[.gz]"
    )
    ex.add_argument("--list-extractors", action="store_true", help="list the extractors, saying which need training")
    ex.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="an option of --extractor (repeatable)"
    )
    ex.add_argument("-o", "--output", help="output file, or folder (existing, or ending in /) for one file per page")
    ex.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    ex.add_argument(
        "--with-metadata",
        action="store_true",
        help="add title, author, date, language, site name, canonical URL (jsonl/csv: fields; text/markdown: a header)",
    )
    ex.add_argument("-j", "--jobs", type=int, default=1, help="worker processes (default: 1)")
    ex.add_argument(
        "--page-timeout",
        type=_seconds,
        metavar="SECONDS",
        help="a page still extracting after SECONDS fails as PageTimeout (its worker process is killed and replaced)",
    )
    ex.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="extract on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786); needs the dask extra",
    )
    ex.add_argument("--quiet", action="store_true", help="no progress bar")
    return ex


def _rows(args: argparse.Namespace, sources: list[Source], job: Job) -> Iterator[dict]:
    if args.cluster:
        from boilerbench.distributed import run_on_cluster

        options = {"markdown": job.markdown, "metadata": job.metadata}
        items = iter_items(sources)
        return run_on_cluster(items, args.cluster, args.extractor, args.model, tuple(args.set), options)
    return run_pages(iter_items(sources, deferred=True), job, args.jobs, args.page_timeout)


def main(argv: Sequence[str] | None = None) -> int:
    """``boilerbench extract ARGS``: its exit status."""
    args = parser().parse_args(argv)
    counts: Counter[str] = Counter()
    output: Output | None = None
    try:
        if args.list_extractors:
            print(list_extractors())
            return 0
        if not args.inputs:
            raise UsageError("no INPUT given (files, folders, - for stdin)")
        if args.jobs < 1:
            raise UsageError(f"-j must be at least 1, got {args.jobs}")
        check_inputs(args.inputs)
        if args.cluster and args.page_timeout is not None:
            raise UsageError("--page-timeout is not enforced on a Dask cluster: leave it out with --cluster")
        extractor = load_extractor(args.extractor, args.model, args.set)  # a bad name or model fails before any work
        job = Job(extractor, args.extractor or "the model", args.format == "markdown", args.with_metadata)
        file_output = args.output and not args.output.endswith(("/", "\\"))
        if file_output and any(s != "-" and Path(s).resolve() == Path(args.output).resolve() for s in args.inputs):
            raise UsageError(f"-o {args.output} is also an input: writing it would destroy it")
        output = Output(args.output, args.format, False, args.with_metadata)
        sources = list_sources(args.inputs, output.path())
        output.several = len(sources) > 1 or any(
            s.path is not None and _kind(s.path) in ("jsonl", "warc") for s in sources
        )
        known = all(s.path is None or s.skipped or _kind(s.path) in ("html", None) for s in sources)
        progress = not args.quiet and sys.stderr.isatty()
        write_rows(_rows(args, sources, job), output, progress, len(sources) if known else None, counts)
    except BoilerbenchError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"interrupted: {summary(counts)}", file=sys.stderr)
        return 130
    finally:
        if output is not None:
            output.close()
    print(summary(counts), file=sys.stderr)
    return 1 if counts["failed"] else 0


if __name__ == "__main__":  # the former entry point: python -m boilerbench.cli extract ...
    sys.exit(main(sys.argv[2:] if sys.argv[1:2] == ["extract"] else sys.argv[1:]))
