"""``boilerbench extract``: no silent loss and no traceback (issue 31). Each case checks the
exact message, the exit status and the counts of the last line."""

from __future__ import annotations

import gzip
import io
import json
import os
import signal
import subprocess
import sys
import tarfile
import time
from collections import Counter

import pytest
from registry import PROJECT
from test_cli import ARTICLE, page, warc_record

from boilerbench import cli, commands
from boilerbench.configs import extractor_config, make_extractor
from boilerbench.datasets.page import Page
from boilerbench.experiments.model_file import FORMAT, save_model_file
from boilerbench.extractors.base import BaseExtractor, Extraction
from boilerbench.page_rows import Item, Job, run_pages


def run(args, capsys):
    status = commands.main(["extract", *args, "--quiet"])
    out, err = capsys.readouterr()
    return status, out, err


def one_line_error(args, capsys) -> tuple[int, str]:
    status, out, err = run(args, capsys)
    assert out == "" and len(err.splitlines()) == 1 and "Traceback" not in err
    return status, err.strip()


@pytest.fixture
def one(tmp_path):
    path = tmp_path / "one.html"
    path.write_text(page(1))
    return path


# -- usage and environment errors: one line, exit 2 ------------------------------------------


def test_url_is_refused(capsys):
    assert one_line_error(["--extractor", "bte", "https://example.com/a"], capsys) == (
        2,
        "error: URLs are not fetched (no network access): https://example.com/a; save the page and give its file",
    )


def test_oracle_is_refused(one, capsys):
    assert one_line_error(["--extractor", "oracle", str(one)], capsys) == (
        2,
        "error: extractor 'oracle' reads the gold text of benchmark pages: it cannot run on your pages",
    )


def test_output_in_a_missing_folder_or_a_file_where_a_folder_is_needed(one, tmp_path, capsys):
    missing = tmp_path / "nope" / "out.txt"
    assert one_line_error(["--extractor", "bte", str(one), "-o", str(missing)], capsys) == (
        2,
        f"error: -o {missing}: no folder {missing.parent}",
    )
    assert one_line_error(["--extractor", "bte", str(one), "-o", f"{tmp_path}/nope/out/"], capsys) == (
        2,
        f"error: -o {tmp_path}/nope/out/: no folder {tmp_path}/nope to make it in",
    )
    assert one_line_error(["--extractor", "bte", str(one), "-o", f"{one}/"], capsys) == (
        2,
        f"error: -o {one}/: a file is there, not a folder",
    )


def test_output_that_is_also_an_input(one, capsys):
    assert one_line_error(["--extractor", "bte", str(one), "-o", str(one)], capsys) == (
        2,
        f"error: -o {one} is also an input: writing it would destroy it",
    )
    assert one.read_text() == page(1)


def test_truncated_model_file(one, tmp_path, capsys):
    model = tmp_path / "bte.bbmodel"
    save_model_file(make_extractor("bte"), model, "bte", extractor_config("bte"), "", {"boilerbench": "test"})
    model.write_bytes(model.read_bytes()[:-40])
    status, message = one_line_error(["--model", str(model), str(one)], capsys)
    assert status == 2 and message.startswith(f"error: {model} is not a boilerbench model file: EOFError: ")


def test_manifest_naming_an_unknown_class(one, tmp_path, capsys):
    manifest = json.dumps(
        {"format": FORMAT, "extractor": "x", "config": {"_target_": "boilerbench.nope.Nope"}}
    ).encode()
    model = tmp_path / "unknown.bbmodel"
    with tarfile.open(model, "w:gz") as tar:
        info = tarfile.TarInfo("manifest.json")
        info.size = len(manifest)
        tar.addfile(info, io.BytesIO(manifest))
    status, message = one_line_error(["--model", str(model), str(one)], capsys)
    expected = f"error: {model}: its config names boilerbench.nope.Nope, which is no extractor of this project"
    assert (status, message) == (2, expected)


def test_bad_set_option(one, capsys):
    status, message = one_line_error(["--extractor", "bte", "--set", "no_such_option=1", str(one)], capsys)
    assert status == 2 and message.startswith("error: bad --set for bte: ")
    assert one_line_error(["--extractor", "bte", "--set", "oops", str(one)], capsys) == (
        2,
        "error: --set takes KEY=VALUE, got 'oops'",
    )


def test_argparse_errors_are_one_line(one, capsys):
    with pytest.raises(SystemExit) as exit_info:
        commands.main(["extract", "--format", "pdf", str(one)])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and len(err.splitlines()) == 1 and err.startswith("error: boilerbench extract: ")


def test_unreachable_cluster(one, capsys, monkeypatch):
    pytest.importorskip("distributed")
    from boilerbench import distributed

    monkeypatch.setattr(distributed, "CONNECT_TIMEOUT_S", 1.0)
    status, message = one_line_error(["--extractor", "bte", "--cluster", "tcp://127.0.0.1:9", str(one)], capsys)
    assert status == 2 and message.startswith("error: no Dask scheduler answered at tcp://127.0.0.1:9: ")


def test_version_and_list_extractors(capsys, monkeypatch):
    assert commands.main(["--version"]) == 0 and capsys.readouterr().out == "boilerbench 0.1.0\n"
    from boilerbench import configs as compose

    monkeypatch.setattr(compose, "extractor_names", lambda: ["all_text", "oracle", "genieknows", "cascade"])
    assert commands.main(["extract", "--list-extractors"]) == 0
    assert capsys.readouterr().out == (
        "all_text\tready (--extractor all_text)\noracle\tneeds gold text (evaluation only)\n"
        "genieknows\tneeds training (--model PATH)\n"
        "cascade\tneeds training (--model PATH or --model accurate)\n"  # shipped fitted
    )


# -- every input is a row ---------------------------------------------------------------------


def test_output_folder_keeps_names_and_is_never_read_back(tmp_path, capsys):
    pages = tmp_path / "pages"
    (pages / "sub").mkdir(parents=True)
    (pages / "a.html.gz").write_bytes(gzip.compress(page(1).encode()))
    (pages / "sub" / "b.htm").write_text(page(2))
    (pages / "data.json").write_text("{}")
    status, _, err = run(["--extractor", "all_text", str(pages), "-o", f"{pages}/out/", "--format", "markdown"], capsys)
    assert status == 0 and err.splitlines()[-1] == "3 pages: 2 extracted, 0 empty, 0 failed, 1 skipped"
    assert sorted(str(p.relative_to(pages / "out")) for p in (pages / "out").rglob("*.md")) == ["a.md", "sub/b.md"]
    assert (pages / "out" / "sub" / "b.md").read_text() == f"Page 2 says: {ARTICLE}\n"
    # again: the output folder is inside the input folder: its two files are skipped, not read
    status, _, err = run(["--extractor", "all_text", str(pages), "-o", f"{pages}/out/"], capsys)
    assert status == 0 and err.splitlines()[-1] == "5 pages: 2 extracted, 0 empty, 0 failed, 3 skipped"


def test_output_file_inside_the_input_folder_is_skipped(tmp_path, capsys):
    (tmp_path / "a.html").write_text(page(1))
    out = tmp_path / "rows.jsonl"
    out.write_text("")
    status, _, err = run(["--extractor", "all_text", str(tmp_path), "-o", str(out), "--format", "jsonl"], capsys)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert status == 0 and [(r["status"], r["skipped"]) for r in rows] == [
        ("extracted", ""),
        ("skipped", "the output of this run"),
    ]


def test_csv_rows_with_metadata(one, capsys):
    status, out, _ = run(["--extractor", "all_text", str(one), "--format", "csv", "--with-metadata"], capsys)
    lines = out.splitlines()
    assert status == 0
    assert (
        lines[0]
        == "id,url,status,text,error,skipped,warnings,ms,title,author,date,language,sitename,canonical_url,page_type"
    )
    assert lines[1].startswith(f"{one},,extracted,Page 1 says: {ARTICLE},,,,")


def test_markdown_with_metadata_header(tmp_path, capsys):
    path = tmp_path / "a.html"
    path.write_text(
        f'<html lang="en"><head><title>Flood</title></head><body><h1>Flood</h1><p>{ARTICLE}</p></body></html>'
    )
    status, out, _ = run(["--extractor", "all_text", str(path), "--format", "markdown", "--with-metadata"], capsys)
    assert status == 0 and out == f"---\ntitle: Flood\nlanguage: en\n---\n# Flood\n\n{ARTICLE}\n"


def test_warc_without_content_type_and_truncated_warc(tmp_path, capsys):
    pytest.importorskip("fastwarc")

    records = [
        warc_record("http://a/1", page(1).encode(), None),
        warc_record("http://a/2", b"%PDF-1.4 not a page", None),
        warc_record("http://a/3", page(3).encode() * 40, "text/html"),
        warc_record("http://a/4", page(4).encode() * 40, "text/html"),
    ]
    whole = tmp_path / "whole.warc.gz"
    whole.write_bytes(b"".join(gzip.compress(r) for r in records))
    status, out, err = run(["--extractor", "all_text", "--format", "jsonl", str(whole)], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and [r["status"] for r in rows] == ["extracted", "skipped", "extracted", "extracted"]
    assert rows[1]["skipped"] == "WARC response no Content-Type and not HTML"
    assert err.splitlines()[-1] == "4 pages: 3 extracted, 0 empty, 0 failed, 1 skipped"
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(whole.read_bytes()[: len(b"".join(gzip.compress(r) for r in records[:3])) + 40])
    status, out, err = run(["--extractor", "all_text", "--format", "jsonl", str(cut)], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 1
    assert rows[-1] == rows[-1] | {
        "id": str(cut),
        "status": "failed",
        "error": "truncated .gz file: the records after the last one read are lost",
    }
    assert [r["status"] for r in rows] == ["extracted", "skipped", "extracted", "failed"]
    assert err.splitlines()[-1] == "4 pages: 2 extracted, 0 empty, 1 failed, 1 skipped"


def test_page_over_the_size_limit_is_an_error_and_set_lifts_it(one, capsys):
    status, out, err = run(
        ["--extractor", "trafilatura", "--set", "max_html_chars=10", "--format", "jsonl", str(one)], capsys
    )
    row = json.loads(out)
    assert status == 1 and row["status"] == "failed"
    assert row["error"] == (
        f"PageTooLargeError: {len(page(1))} characters > this extractor's limit 10 "
        "(raise it with --set max_html_chars=N)"
    )
    status, out, _ = run(["--extractor", "trafilatura", "--set", "max_html_chars=1000", str(one)], capsys)
    assert status == 0 and out == f"Page 1 says: {ARTICLE}\n"


def test_majority_vote_on_a_page_too_large_for_every_member_extracts_it_in_pieces(tmp_path, capsys):
    huge = tmp_path / "huge.html"
    huge.write_text("<html><body>" + f"<p>{ARTICLE}</p>" * 25_000 + "</body></html>")
    status, out, err = run(["--extractor", "majority_vote", "--format", "jsonl", str(huge)], capsys)
    row = json.loads(out)
    assert status == 0 and row["status"] == "extracted" and row["text"].count(ARTICLE) > 24_900
    assert row["warnings"] == [
        "2,500,026 characters of HTML: extracted in 3 pieces of at most about 1,000,000, "
        "each without the rest of the page"
    ]
    assert err.splitlines()[-1] == "1 pages: 1 extracted, 0 empty, 0 failed, 0 skipped"


def test_cjk_page_with_no_text_warns_in_the_row(tmp_path, capsys):
    path = tmp_path / "zh.html"
    path.write_text(
        "<html><body><p>这是一个关于城市河流的中文页面，内容很长，介绍了洪水和桥梁关闭的情况。</p></body></html>"
    )
    # jusText's English stoplist finds no stopword in Chinese (by default it refuses the page: no stoplist)
    status, out, err = run(
        ["--extractor", "justext", "--set", "stoplist=English", "--format", "jsonl", str(path)], capsys
    )
    row = json.loads(out)
    message = "justext returned no text on a Chinese page: it may not handle Chinese text"
    assert status == 0 and row["status"] == "empty" and row["text"] == "" and row["warnings"] == [message]
    assert f"warning: {path}: {message}" in err
    assert err.splitlines()[-1] == "1 pages: 0 extracted, 1 empty, 0 failed, 0 skipped"


def test_no_default_model_is_one_line(one, capsys, monkeypatch):
    from boilerbench import api

    monkeypatch.setattr(api, "DEFAULT_MODEL", one.parent / "default.bbmodel")
    status, message = one_line_error([str(one)], capsys)
    assert status == 2 and message.startswith(
        f"error: this installation has no default model ({one.parent}/default.bbmodel)"
    )


def test_progress_bar_has_a_total(capsys):
    rows = [{"id": f"p{n}", "status": "extracted", "error": "", "warnings": [], "text": "x"} for n in range(3)]
    output = cli.Output(None, "text", True, False)
    counts: Counter[str] = Counter()
    cli.write_rows(iter(rows), output, True, 3, counts)
    err = capsys.readouterr().err
    assert "3/3" in err and "<00:00" in err and counts == Counter(extracted=3)


# -- worker crashes and Ctrl-C ------------------------------------------------------------------


class DiesOnPage(BaseExtractor):
    """Kills its own process on the pages whose id contains ``marker`` (a segfault, the OOM killer);
    with ``once``, only the first time (a flag file records it)."""

    def __init__(self, marker: str, flag: str = "") -> None:
        self.marker, self.flag = marker, flag

    def extract(self, page: Page) -> Extraction:
        if self.marker in page.id and not (self.flag and os.path.exists(self.flag)):
            if self.flag:
                open(self.flag, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return Extraction(page.id)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_killed_worker_page_is_retried_then_reported(tmp_path):
    items = [Item(f"p{n}", page(n).encode()) for n in range(6)]
    rows = list(run_pages(items, Job(DiesOnPage("p3", str(tmp_path / "died"))), 2))
    assert [(r["id"], r["status"], r["text"]) for r in rows] == [(f"p{n}", "extracted", f"p{n}") for n in range(6)]
    rows = list(run_pages(items, Job(DiesOnPage("p3")), 2))
    assert [r["status"] for r in rows] == ["extracted"] * 3 + ["failed"] + ["extracted"] * 2
    assert rows[3]["error"] == "WorkerCrashed: the worker process died twice on page 'p3'"


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_writes_every_finished_row_and_the_counts(tmp_path, jobs):
    pages = tmp_path / "pages"
    pages.mkdir()
    for n in range(3000):
        (pages / f"{n:05d}.html").write_text(page(n))
    out = tmp_path / "rows.jsonl"
    command = [sys.executable, "-m", "boilerbench", "extract", "--extractor", "bte", "--format", "jsonl"]
    proc = subprocess.Popen(
        [*command, "-j", jobs, "--quiet", str(pages), "-o", str(out)],
        cwd=PROJECT,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(PROJECT)},
        # a process started with SIGINT ignored (a background job, some CI runners) passes that on,
        # and Python then never raises KeyboardInterrupt: the command gets the default, as in a terminal
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.time() + 60
    while time.time() < deadline and (not out.exists() or out.stat().st_size < 10_000):
        time.sleep(0.1)
    if proc.poll() is not None:  # a loaded machine's pool may hand back every row at the end
        pytest.skip("the run finished before its output could be interrupted")
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=60)[1]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert proc.returncode == 130 and "Traceback" not in err
    assert 0 < len(rows) < 3000 and all(r["status"] == "extracted" for r in rows)
    assert (
        err.splitlines()[-1] == f"interrupted: {len(rows)} pages: {len(rows)} extracted, 0 empty, 0 failed, 0 skipped"
    )
