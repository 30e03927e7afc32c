"""A user's own data, scored with no code: a folder of ``NAME.html`` + ``NAME.txt`` pairs, or a
JSONL file with ``id``, ``html`` and ``text`` fields (one page per line).

Every page is a test page (``split=all``). Files are decoded with the same encoding detection
as the standard datasets; the ``.txt`` gold may use CleanEval's markup (a ``URL:`` line,
``<p>/<h>/<l>`` markers) or be plain text.

A page may name its language (an ISO 639 code such as ``zh``, ``ja``, ``th``, ``el``): a
``language`` field in the JSONL record, or, for a folder, a ``languages.json`` object mapping
``NAME`` to its code. The metrics then tokenize the page with that language's tokenizer instead
of detecting it from the script (:mod:`boilerbench.tokenizer`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from boilerbench.datasets.base import Dataset, Split
from boilerbench.datasets.cleaneval import parse_gold
from boilerbench.datasets.encoding import decode_bytes, strip_controls
from boilerbench.datasets.page import Page
from boilerbench.errors import DatasetNotFoundError


class PlainText(Dataset):
    """Pairs of HTML and gold text from ``root`` (a folder or a ``.jsonl`` file)."""

    name = "plaintext"
    splits = ("all",)

    def __init__(self, root: str | os.PathLike[str] | None = None, split: str | None = None, **kwargs) -> None:
        kwargs.setdefault("download", False)
        super().__init__(root=root, split=split, **kwargs)

    def is_complete(self, folder: Path) -> bool:
        return folder.is_file() or folder.is_dir()

    def load_split(self, root: Path, split: str) -> Split:
        pages = self._from_jsonl(root) if root.is_file() else self._from_folder(root)
        if not pages:
            raise DatasetNotFoundError(f"No pages in {root}: expected NAME.html + NAME.txt pairs or a JSONL file")
        return Split(name=split, test=pages)

    @staticmethod
    def _from_folder(root: Path) -> list[Page]:
        pages = []
        languages = _languages(root / "languages.json")
        for html_path in sorted(root.glob("*.html")):
            gold_path = html_path.with_suffix(".txt")
            if not gold_path.exists():
                continue
            markup = decode_bytes(gold_path.read_bytes(), is_html=False)
            gold, url = parse_gold(markup)
            html = decode_bytes(html_path.read_bytes(), is_html=True)
            meta = {"gold_markup": markup}
            if html_path.stem in languages:
                meta["language"] = languages[html_path.stem]
            pages.append(Page(id=html_path.stem, html=html, gold_text=gold, url=url, meta=meta))
        return pages

    @staticmethod
    def _from_jsonl(path: Path) -> list[Page]:
        pages = []
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                    html, markup = record["html"], record["text"]
                except (json.JSONDecodeError, KeyError, TypeError) as err:
                    raise DatasetNotFoundError(f"{path}:{n}: not a JSON object with 'html' and 'text' ({err})") from err
                gold, url = parse_gold(markup)
                page_id = str(record.get("id", n))
                meta = {"gold_markup": markup}
                if record.get("language"):
                    meta["language"] = str(record["language"])
                pages.append(
                    Page(
                        id=page_id,
                        html=strip_controls(html),
                        gold_text=gold,
                        url=record.get("url", url),
                        meta=meta,
                    )
                )
        return pages


def _languages(path: Path) -> dict[str, str]:
    """``languages.json`` of a folder dataset (NAME -> ISO 639 code), or nothing when absent."""
    if not path.exists():
        return {}
    try:
        mapping = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise DatasetNotFoundError(f"{path}: not a JSON object mapping page names to language codes ({err})") from err
    if not isinstance(mapping, dict):
        raise DatasetNotFoundError(f"{path}: not a JSON object mapping page names to language codes")
    return {str(k): str(v) for k, v in mapping.items()}
