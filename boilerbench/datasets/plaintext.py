"""A user's own data, scored with no code: a folder of ``NAME.html`` + ``NAME.txt`` pairs, or a
JSONL file with ``id``, ``html`` and ``text`` fields (one page per line).

Every page is a test page (``split=all``). Files are decoded with the same encoding detection
as the standard datasets; the ``.txt`` gold may use CleanEval's markup (a ``URL:`` line,
``<p>/<h>/<l>`` markers) or be plain text.
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
        for html_path in sorted(root.glob("*.html")):
            gold_path = html_path.with_suffix(".txt")
            if not gold_path.exists():
                continue
            markup = decode_bytes(gold_path.read_bytes(), is_html=False)
            gold, url = parse_gold(markup)
            html = decode_bytes(html_path.read_bytes(), is_html=True)
            pages.append(Page(id=html_path.stem, html=html, gold_text=gold, url=url, meta={"gold_markup": markup}))
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
                pages.append(
                    Page(
                        id=page_id,
                        html=strip_controls(html),
                        gold_text=gold,
                        url=record.get("url", url),
                        meta={"gold_markup": markup},
                    )
                )
        return pages
