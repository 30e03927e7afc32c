"""What the CleanEval 2007 heuristics share: rendered lines, link text and the page's character stream."""

from __future__ import annotations

import numpy as np

from boilerbench.datasets.blocks import Blocks


def block_lines(blocks: Blocks) -> np.ndarray:
    """The line index of every block: a new line starts at each block preceded by a line break."""
    starts = np.fromiter((i == 0 or sep == "\n" for i, sep in enumerate(blocks.seps)), dtype=bool, count=len(blocks))
    return np.cumsum(starts) - 1


def line_texts(blocks: Blocks, line_of: np.ndarray) -> list[str]:
    """The text of each line: its blocks joined with the separators between them."""
    n_lines = int(line_of[-1]) + 1 if len(line_of) else 0
    parts: list[list[str]] = [[] for _ in range(n_lines)]
    for text, line, sep in zip(blocks.texts, line_of, blocks.seps, strict=True):
        parts[line].append(text if not parts[line] else sep + text)
    return ["".join(p) for p in parts]


def in_link(blocks: Blocks) -> np.ndarray:
    """Whether each block's text lies inside an ``<a>`` element (its tag path passes through one)."""
    return np.fromiter(("a" in path.split("/") for path in blocks.paths), dtype=bool, count=len(blocks))


def char_stream(blocks: Blocks) -> tuple[str, np.ndarray]:
    """The page as one string (each block preceded by its separator) and, per character, the
    index of the block it belongs to (-1 for separators)."""
    pieces = [piece for sep, text in zip(blocks.seps, blocks.texts, strict=True) for piece in (sep, text)]
    lengths = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
    owners = np.repeat(np.stack([np.full(len(blocks), -1), np.arange(len(blocks))], axis=1).ravel(), lengths)
    return "".join(pieces), owners
