"""Loaders, splits, data discovery and the checksummed download."""

import functools
import http.server
import json
import threading
import zipfile
from pathlib import Path

import pytest
from conftest import write_pairs

from boilerbench.datasets.base import ENV_VAR, kfold
from boilerbench.datasets.blocks import segment
from boilerbench.datasets.cleaneval import CleanEval, parse_gold, read_page_id, unwrap_html
from boilerbench.datasets.download import fetch_dataset, write_manifest
from boilerbench.datasets.l3s import restore_lost_characters, span_classes
from boilerbench.datasets.page import Page
from boilerbench.datasets.plaintext import PlainText
from boilerbench.errors import ConfigError, DatasetNotFoundError


def test_unwrap_cleaneval_html():
    raw = b'<text id="http://x.org/a" title="A page" encoding="iso-8859-1">\n<html><body>hi</body></html>\n</text>\n'
    html, attrs = unwrap_html(raw)
    assert html.strip() == b"<html><body>hi</body></html>"
    assert attrs == {"id": "http://x.org/a", "title": "A page", "encoding": "iso-8859-1"}


def test_parse_cleaneval_gold():
    markup = "\ufeffURL: http://x.org/a\n\n   <h>The  title\n<p>First line\nwraps here.\n<l> * item\n"
    text, url = parse_gold(markup)
    assert url == "http://x.org/a"
    assert text == "The title\nFirst line wraps here.\n* item"


def test_plaintext_folder_and_jsonl(tmp_path):
    folder = write_pairs(tmp_path / "pairs", {"a": ("<p>Hello</p>", "Hello"), "b": ("<p>x</p><p>y</p>", "<p>y")})
    (folder / "orphan.html").write_text("<p>no gold</p>")
    pages = PlainText(root=folder).load().test
    assert [p.id for p in pages] == ["a", "b"]
    assert pages[1].gold_text == "y"
    jsonl = tmp_path / "pages.jsonl"
    jsonl.write_text(json.dumps({"id": "j1", "html": "<p>A\x00B</p>", "text": "AB"}) + "\n\n")
    [page] = PlainText(root=jsonl).load().test
    assert (page.id, page.html, page.gold_text) == ("j1", "<p>AB</p>", "AB")


def test_plaintext_bad_jsonl_is_one_clear_error(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"html": "<p>x</p>"}\n')
    with pytest.raises(DatasetNotFoundError, match="bad.jsonl:1"):
        PlainText(root=bad).load()


def test_kfold_is_a_fixed_partition():
    pages = [Page(str(i), "", "") for i in range(23)]
    folds = kfold(pages, k=5, seed=0)
    tested = [p.id for f in folds for p in f.test]
    assert sorted(tested, key=int) == [str(i) for i in range(23)]
    assert [len(f.test) for f in folds] == [5, 5, 5, 4, 4]
    for f in folds:
        assert not {p.id for p in f.train} & {p.id for p in f.test}
        assert len(f.train) + len(f.test) == 23
    assert [p.id for p in kfold(pages, 5, 0)[2].test] == [p.id for p in folds[2].test]
    assert [p.id for p in kfold(pages, 5, 1)[0].test] != [p.id for p in folds[0].test]


def test_discovery_order(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    ds = CleanEval(data_dir=tmp_path / "data", download=False)
    assert ds.candidates() == [tmp_path / "data" / "cleaneval"]
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "env"))
    assert ds.candidates() == [tmp_path / "env" / "cleaneval", tmp_path / "data" / "cleaneval"]
    explicit = CleanEval(root=tmp_path / "mine", data_dir=tmp_path / "data", download=False)
    assert explicit.candidates() == [tmp_path / "mine"]


def test_missing_dataset_message_names_the_places(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "env"))
    ds = CleanEval(data_dir=tmp_path / "data", download=False)
    with pytest.raises(DatasetNotFoundError) as err:
        ds.load()
    message = str(err.value)
    assert str(tmp_path / "env" / "cleaneval") in message and str(tmp_path / "data" / "cleaneval") in message
    assert ENV_VAR in message and "dataset.root" in message


def test_wrong_split_lists_the_options(tmp_path):
    with pytest.raises(ConfigError, match="cleaneval, web2text, all"):
        CleanEval(root=tmp_path, split="nope").load()


def test_l3s_span_labels_and_repair():
    blocks = segment(
        '<div><span class="x-nc-sel1">Head line</span><span class="x-nc-sel0">Menu</span>'
        '<span class="x-nc-sel2">Body <b>bold</b> text</span><p>none</p></div>'
    )
    assert span_classes(blocks).tolist() == [1, 0, 2, 2, 2, -1]
    page_html = "<p>Kosovo\u2019s future \u2014 \u201cnow\u201d</p>"
    assert (
        restore_lost_characters("Kosovo?s future ? ?now? why?", page_html)
        == "Kosovo\u2019s future \u2014 \u201cnow\u201d why?"
    )


@pytest.fixture
def http_server(tmp_path):
    """A local HTTP server over tmp_path/www (loopback only)."""
    root = tmp_path / "www"
    root.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _make_archive(www: Path, name: str, files: dict[str, bytes]) -> None:
    with zipfile.ZipFile(www / name, "w") as zf:
        for path, data in files.items():
            zf.writestr(path, data)


def test_download_verifies_manifest_and_installs_atomically(tmp_path, http_server):
    www, url = http_server
    _make_archive(
        www,
        "a.zip",
        {
            "repo-123/set/input/1.html": b"<p>one</p>",
            "repo-123/set/gold/1.txt": b"one",
            "repo-123/other/ignored.txt": b"x",
            "repo-123/set/.DS_Store": b"junk",
        },
    )
    _make_archive(www, "b.zip", {"extra-9/g/2.txt": b"two"})
    expected = tmp_path / "expected"
    for rel, data in {"set/input/1.html": b"<p>one</p>", "set/gold/1.txt": b"one", "set/gold/2.txt": b"two"}.items():
        (expected / rel).parent.mkdir(parents=True, exist_ok=True)
        (expected / rel).write_bytes(data)
    manifest = tmp_path / "m.sha256"
    manifest.write_text(write_manifest(expected))
    source = {
        "manifest": str(manifest),
        "archives": [
            {"url": f"{url}/a.zip", "strip": "repo-123", "include": ["set"]},
            {"url": f"{url}/b.zip", "strip": "extra-9", "files": {"g/2.txt": "set/gold/2.txt"}},
        ],
    }
    target = tmp_path / "data" / "toy"
    fetch_dataset(source, target)
    got = sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())
    assert got == ["set/gold/1.txt", "set/gold/2.txt", "set/input/1.html"]
    assert (target / "set/gold/2.txt").read_bytes() == b"two"

    bad_manifest = tmp_path / "bad.sha256"
    bad_manifest.write_text(manifest.read_text().replace(manifest.read_text()[:8], "00000000", 1))
    other = tmp_path / "data" / "toy2"
    with pytest.raises(ValueError, match="wrong checksum"):
        fetch_dataset({**source, "manifest": str(bad_manifest)}, other)
    assert not other.exists()
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["toy"]  # no staging folder left behind


def test_dataset_downloads_when_missing(tmp_path, http_server, monkeypatch):
    www, url = http_server
    monkeypatch.delenv(ENV_VAR, raising=False)
    files = {
        "cleaneval-dev/input/1.html": b'<text id="u">\n<p>Hi there</p>\n</text>',
        "cleaneval-dev/GoldStandard/1-cleaned.txt": b"URL: u\n<p>Hi there",
        "cleaneval-final/finalrun-input/61.html": b"<p>x</p>",
        "cleaneval-final/GoldStandard/61.txt": b"<p>x",
    }
    _make_archive(www, "ce.zip", {f"r/{k}": v for k, v in files.items()})
    staged = tmp_path / "staged"
    for rel, data in files.items():
        (staged / rel).parent.mkdir(parents=True, exist_ok=True)
        (staged / rel).write_bytes(data)
    (tmp_path / "m").write_text(write_manifest(staged))
    source = {"manifest": str(tmp_path / "m"), "archives": [{"url": f"{url}/ce.zip", "strip": "r"}]}
    ds = CleanEval(data_dir=tmp_path / "data", source=source)
    assert ds.locate() == tmp_path / "data" / "cleaneval"
    page = read_page_id(ds.locate(), 1)
    assert (page.gold_text, page.url) == ("Hi there", "u")
