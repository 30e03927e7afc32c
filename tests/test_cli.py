"""``boilerbench extract``: inputs of every kind, failures reported while the rest go on, exit status."""

from __future__ import annotations

import gc
import gzip
import io
import json
import subprocess
import sys

import numpy as np
import pytest
from registry import PROJECT

from boilerbench import commands
from boilerbench.cli import iter_items, list_sources
from boilerbench.datasets.page import Page
from boilerbench.extractors.base import BaseExtractor, Extraction
from boilerbench.page_rows import Item, Job, looks_binary, run_pages

ARTICLE = "The river rose by two metres overnight and the old bridge was closed to traffic until Monday."


def page(n: int) -> str:
    return f"<html><body><p>Page {n} says: {ARTICLE}</p></body></html>"


@pytest.fixture
def folder(tmp_path):
    pages = tmp_path / "pages"
    (pages / "sub").mkdir(parents=True)
    for n in range(3):
        (pages / f"good{n}.html").write_text(page(n), encoding="utf-8")
    (pages / "sub" / "good3.htm").write_text(page(3), encoding="utf-8")
    (pages / "binary.html").write_bytes(np.random.default_rng(0).integers(0, 256, 5000, dtype=np.uint8).tobytes())
    (pages / "empty.html").write_bytes(b"")
    (pages / ".hidden.html").write_text(page(99), encoding="utf-8")
    (pages / "notes.txt").write_text(page(98), encoding="utf-8")
    (pages / "page4.html.gz").write_bytes(gzip.compress(page(4).encode()))
    return pages


def run_cli(args, capsys):
    status = commands.main(["extract", *args, "--quiet"])
    out, err = capsys.readouterr()
    return status, out, err


def test_folder_with_a_binary_and_an_empty_file(folder, capsys):
    status, out, err = run_cli(["--extractor", "all_text", "--format", "jsonl", str(folder)], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 1
    names = [r["id"].rsplit("/", 1)[-1] for r in rows]
    assert names == [
        "binary.html", "empty.html", "good0.html", "good1.html", "good2.html", "notes.txt", "page4.html.gz", "good3.htm"
    ]  # fmt: skip
    by_name = dict(zip(names, rows, strict=True))
    for n in range(5):
        good = by_name[f"good{n}.html" if n < 3 else "good3.htm" if n == 3 else "page4.html.gz"]
        assert (good["status"], good["error"], good["text"]) == ("extracted", "", f"Page {n} says: {ARTICLE}")
    assert by_name["binary.html"]["error"] == "binary file, not HTML" and by_name["binary.html"]["text"] == ""
    assert by_name["empty.html"]["error"] == "empty page" and by_name["empty.html"]["status"] == "failed"
    assert by_name["notes.txt"]["status"] == "skipped" and by_name["notes.txt"]["text"] == ""
    assert by_name["notes.txt"]["skipped"] == "not an HTML, WARC or JSON Lines file (.txt)"
    assert "binary.html: binary file, not HTML" in err and "empty.html: empty page" in err
    assert err.splitlines()[-1] == "8 pages: 5 extracted, 0 empty, 2 failed, 1 skipped"


def test_all_good_pages_exit_zero_and_text_output(tmp_path, capsys):
    one = tmp_path / "one.html"
    one.write_text(page(1))
    status, out, _ = run_cli(["--extractor", "bte", str(one)], capsys)
    assert status == 0 and out == f"Page 1 says: {ARTICLE}\n"
    two = tmp_path / "two.html"
    two.write_text(page(2))
    status, out, _ = run_cli(["--extractor", "all_text", str(one), str(two), "-o", str(tmp_path / "out.txt")], capsys)
    assert status == 0 and out == ""
    assert (tmp_path / "out.txt").read_text() == (
        f"==> {one} <==\nPage 1 says: {ARTICLE}\n\n==> {two} <==\nPage 2 says: {ARTICLE}\n\n"
    )


def test_unknown_extractor_lists_the_valid_ones(tmp_path, capsys):
    (tmp_path / "a.html").write_text(page(0))
    status, out, err = run_cli(["--extractor", "nope", str(tmp_path / "a.html")], capsys)
    assert status == 2 and out == ""
    assert "unknown extractor 'nope'; choose one of:" in err and "trafilatura" in err and "bte" in err


def test_usage_errors_exit_two(tmp_path, capsys):
    assert run_cli(["--extractor", "bte", str(tmp_path / "missing.html")], capsys)[0] == 2
    (tmp_path / "a.html").write_text(page(0))
    status, _, err = run_cli(["--extractor", "stack", str(tmp_path / "a.html")], capsys)
    assert status == 2 and "save_model=PATH" in err and "--model" in err
    with pytest.raises(SystemExit) as exit_info:  # argparse: both --extractor and --model
        commands.main(["extract", "--extractor", "bte", "--model", "m", str(tmp_path / "a.html")])
    assert exit_info.value.code == 2


def test_jsonl_and_stdin_inputs(tmp_path, capsys, monkeypatch):
    source = tmp_path / "pages.jsonl"
    lines = [{"id": "x", "url": "http://x/", "html": page(7)}, {"no_html": 1}, {"html": page(8)}]
    source.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    status, out, _ = run_cli(["--extractor", "all_text", "--format", "jsonl", str(source)], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 1
    assert [r["id"] for r in rows] == ["x", f"{source}:2", f"{source}:3"]
    assert rows[0]["url"] == "http://x/" and rows[0]["text"].startswith("Page 7")
    assert rows[1]["error"].startswith("bad JSON line") and rows[2]["text"].startswith("Page 8")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(page(5).encode())))
    status, out, _ = run_cli(["--extractor", "all_text", "-"], capsys)
    assert status == 0 and out == f"Page 5 says: {ARTICLE}\n"


def warc_record(uri: str, body: bytes, content_type: str | None) -> bytes:
    typed = b"" if content_type is None else b"Content-Type: " + content_type.encode() + b"\r\n"
    http = b"HTTP/1.1 200 OK\r\n" + typed + b"\r\n" + body
    head = (
        f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{uri[-1]}>\r\nWARC-Target-URI: {uri}\r\n"
        "WARC-Date: 2024-01-02T03:04:05Z\r\n"
        f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(http)}\r\n\r\n"
    )
    return head.encode() + http + b"\r\n\r\n"


def test_warc_input_keeps_html_responses(tmp_path, capsys):
    pytest.importorskip("fastwarc")
    data = (
        warc_record("http://a/1", page(1).encode("windows-1252"), "text/html; charset=windows-1252")
        + warc_record("http://a/2", b"\x89PNG....", "image/png")
        + warc_record("http://a/3", page(3).encode(), "text/html")
    )
    path = tmp_path / "crawl.warc.gz"
    path.write_bytes(gzip.compress(data))
    status, out, _ = run_cli(["--extractor", "all_text", "--format", "jsonl", str(path)], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 0
    assert [(r["id"], r["url"], r["status"]) for r in rows] == [
        ("<urn:uuid:1>", "http://a/1", "extracted"),
        ("<urn:uuid:2>", "http://a/2", "skipped"),
        ("<urn:uuid:3>", "http://a/3", "extracted"),
    ]
    assert rows[0]["text"].startswith("Page 1") and rows[2]["text"].startswith("Page 3")
    assert rows[1]["skipped"] == "WARC response not HTML (image/png)"


@pytest.mark.slow
def test_worker_processes_keep_the_input_order(folder):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "boilerbench",
            "extract",
            "--extractor",
            "all_text",
            "--format",
            "jsonl",
            "-j",
            "2",
            "--quiet",
            str(folder),
        ],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert proc.returncode == 1
    assert [r["id"].rsplit("/", 1)[-1] for r in rows][2:] == [
        "good0.html", "good1.html", "good2.html", "notes.txt", "page4.html.gz", "good3.htm"
    ]  # fmt: skip
    assert proc.stderr.splitlines()[-1] == "8 pages: 5 extracted, 0 empty, 2 failed, 1 skipped"


def test_console_script_is_declared():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    scripts = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, function = scripts["boilerbench"].partition(":")
    assert module == "boilerbench.commands" and callable(getattr(commands, function))


def test_binary_detection():
    assert looks_binary(b"\x00\x01\x02\x03" * 100)
    assert not looks_binary(page(1).encode())
    assert not looks_binary("<p>ünïcödé</p>".encode("utf-16"))


def test_run_save_model_then_extract_with_it(tmp_path, capsys):
    from test_runner import make_cfg

    from boilerbench.experiments import run

    model = tmp_path / "bte.model"
    run(make_cfg(tmp_path, "extractor=bte", f"save_model={model}"), tmp_path / "out")
    one = tmp_path / "one.html"
    one.write_text(page(1))
    capsys.readouterr()
    status, out, _ = run_cli(["--model", str(model), str(one)], capsys)
    assert status == 0 and out == f"Page 1 says: {ARTICLE}\n"
    status, _, err = run_cli(["--model", str(tmp_path / "nothing.model"), str(one)], capsys)
    assert status == 2 and "no such model file" in err


class CountsFrozen(BaseExtractor):
    """Records, on each page, how many objects the garbage collector leaves alone (frozen)."""

    def __init__(self) -> None:
        self.frozen: list[int] = []

    def extract(self, page: Page) -> Extraction:
        self.frozen.append(gc.get_freeze_count())
        return Extraction(page.id)


def test_one_process_extracts_with_the_heap_frozen_and_thaws_it_after():
    before = gc.get_freeze_count()
    extractor = CountsFrozen()
    items = [Item(f"p{n}", page(n).encode()) for n in range(3)]
    rows = list(run_pages(items, Job(extractor)))
    assert [(r["id"], r["status"]) for r in rows] == [("p0", "extracted"), ("p1", "extracted"), ("p2", "extracted")]
    assert len(extractor.frozen) == 3 and min(extractor.frozen) > before  # the extractor itself among them
    assert gc.get_freeze_count() == before
    rows_left = run_pages(items, Job(extractor))
    next(rows_left)
    rows_left.close()  # a reader that stops early (an error while writing) thaws it too
    assert gc.get_freeze_count() == before


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_files_are_read_where_they_are_extracted_and_a_truncated_one_is_its_rows_error(tmp_path, capsys, jobs):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.html").write_text(page(1))
    (folder / "b.html.gz").write_bytes(gzip.compress(page(2).encode()))
    (folder / "c.html.gz").write_bytes(gzip.compress(page(3).encode())[:-12])
    deferred = list(iter_items(list_sources([str(folder)]), deferred=True))
    names = ("a.html", "b.html.gz", "c.html.gz")
    assert [(i.data, i.path) for i in deferred] == [(b"", str(folder / n)) for n in names]
    status, out, _ = run_cli(["--extractor", "all_text", "--format", "jsonl", "-j", jobs, str(folder)], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 1
    assert [(r["status"], r["text"]) for r in rows[:2]] == [
        ("extracted", f"Page 1 says: {ARTICLE}"),
        ("extracted", f"Page 2 says: {ARTICLE}"),
    ]
    assert rows[2]["status"] == "failed"
    truncated = "EOFError: Compressed file ended before the end-of-stream marker was reached"
    assert rows[2]["error"] == f"cannot read: {truncated}"
