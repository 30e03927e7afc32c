"""Metadata accuracy on WCXB's development pages: boilerbench's metadata (:mod:`boilerbench.metadata`)
next to trafilatura's ``extract_metadata`` on the same pages, against the gold ``title``,
``author`` and ``publish_date`` of ``dev/ground-truth/*.json``.

    BOILERBENCH_DATA=../shared/datasets python -m studies.metadata [--limit N]

A field is compared after collapsing whitespace; ``title`` exactly, ``author`` case-insensitively,
``date`` as ``YYYY-MM-DD``. Each field is scored on the pages whose gold has it (``found``: the
share where the method's value equals the gold), and on every page (``all``: a page without a
gold value counts as right when the method also gives none).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from benchmarks.common import run_main
from boilerbench.datasets.encoding import decode_bytes
from boilerbench.datasets.reading import read_gzip
from boilerbench.errors import DatasetNotFoundError
from boilerbench.html_tree import parse_html
from boilerbench.metadata import find_author, find_date, find_title

GOLD = {"title": "title", "author": "author", "date": "publish_date"}


def _norm(field: str, value: object) -> str | None:
    if value is None:
        return None
    text = " ".join(str(value).split())
    if field == "author":
        text = text.lower()
    if field == "date":
        text = text[:10]
    return text or None


def ours(html: str, url: str | None) -> dict[str, str | None]:
    root = parse_html(html)
    if root is None:
        return dict.fromkeys(GOLD)
    return {"title": find_title(root), "author": find_author(root), "date": find_date(html, url)}


def trafilatura_fields(html: str, url: str | None) -> dict[str, str | None]:
    import trafilatura

    document = trafilatura.extract_metadata(html, default_url=url)
    if document is None:
        return dict.fromkeys(GOLD)
    return {"title": document.title, "author": document.author, "date": document.date}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=None, help="WCXB folder (default: $BOILERBENCH_DATA/wcxb)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages")
    args = parser.parse_args(argv)
    root = Path(args.root) if args.root else Path(os.environ.get("BOILERBENCH_DATA", "data")) / "wcxb"
    gold_files = sorted((root / "dev" / "ground-truth").glob("*.json"))[: args.limit]
    if not gold_files:
        raise DatasetNotFoundError(f"no WCXB ground truth under {root}/dev/ground-truth")
    methods = {"boilerbench": ours, "trafilatura": trafilatura_fields}
    right = {(m, f, scope): 0 for m in methods for f in GOLD for scope in ("found", "all")}
    with_gold = dict.fromkeys(GOLD, 0)
    for n, path in enumerate(gold_files, start=1):
        record = json.loads(path.read_text(encoding="utf-8"))
        gold = {f: _norm(f, record["ground_truth"].get(key)) for f, key in GOLD.items()}
        html = decode_bytes(read_gzip(root / "dev" / "html" / f"{path.stem}.html.gz"))
        for field in GOLD:
            with_gold[field] += gold[field] is not None
        for name, method in methods.items():
            found = method(html, record.get("url"))
            for field in GOLD:
                same = _norm(field, found[field]) == gold[field]
                right[name, field, "all"] += same
                right[name, field, "found"] += same and gold[field] is not None
        print(f"\r{n}/{len(gold_files)}", end="", file=sys.stderr)
    print(file=sys.stderr)
    pages = len(gold_files)
    print(
        f"WCXB dev, {pages} pages (gold title on {with_gold['title']}, author on {with_gold['author']}, "
        f"date on {with_gold['date']})"
    )
    print(f"{'method':<12} " + " ".join(f"{f + ' (gold)':>14} {f + ' (all)':>13}" for f in GOLD))
    for name in methods:
        cells = []
        for field in GOLD:
            found = right[name, field, "found"] / max(with_gold[field], 1)
            cells.append(f"{100 * found:>13.1f}% {100 * right[name, field, 'all'] / pages:>12.1f}%")
        print(f"{name:<12} " + " ".join(cells))
    return 0


if __name__ == "__main__":
    run_main(main)
