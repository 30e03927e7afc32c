"""The datatrove step: a local datatrove pipeline (WARC reader -> boilerbench -> JSONL writer)
over a small WARC written here."""

from __future__ import annotations

import gzip
import json

import pytest
from test_cli import ARTICLE, warc_record

for module in ("datatrove", "warcio", "cchardet", "magic", "orjson"):
    pytest.importorskip(module)

from datatrove.executor import LocalPipelineExecutor  # noqa: E402
from datatrove.pipeline.readers import WarcReader  # noqa: E402
from datatrove.pipeline.writers import JsonlWriter  # noqa: E402

from boilerbench.integrations.datatrove import BoilerbenchExtractor  # noqa: E402


def article(n: int) -> bytes:
    return (
        f"<html><body><nav><a href=/>Home</a> <a href=/news>News</a></nav>"
        f"<h1>Story {n}</h1><p>{ARTICLE}</p><p>{ARTICLE}</p></body></html>"
    ).encode()


@pytest.mark.parametrize("output", ["text", "markdown"])
def test_warc_to_jsonl_pipeline(tmp_path, output):
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    records = [
        warc_record("http://a/1", article(1), "text/html"),
        warc_record("http://a/2", b"<html><body></body></html>", "text/html"),  # no main text: dropped
        warc_record("http://a/3", article(3), "text/html"),
    ]
    (crawl / "part.warc.gz").write_bytes(b"".join(gzip.compress(r) for r in records))
    LocalPipelineExecutor(
        [
            WarcReader(str(crawl)),
            BoilerbenchExtractor(extractor="all_text", output=output),
            JsonlWriter(str(tmp_path / "out"), compression=None),
        ],
        tasks=1,
        workers=1,
        logging_dir=str(tmp_path / "logs"),
    ).run()
    rows = [json.loads(line) for path in sorted((tmp_path / "out").glob("*.jsonl")) for line in path.open()]
    assert [(r["id"], r["metadata"]["url"]) for r in rows] == [
        ("<urn:uuid:1>", "http://a/1"),
        ("<urn:uuid:3>", "http://a/3"),
    ]
    expected = {
        "text": f"Home News\nStory 1\n{ARTICLE}\n{ARTICLE}",
        "markdown": f"Home News\n\n# Story 1\n\n{ARTICLE}\n\n{ARTICLE}",
    }
    assert rows[0]["text"] == expected[output]
    assert rows[1]["text"] == expected[output].replace("Story 1", "Story 3")


def test_bad_output_is_refused():
    with pytest.raises(Exception, match="output='json' is not valid"):
        BoilerbenchExtractor(extractor="all_text", output="json")
