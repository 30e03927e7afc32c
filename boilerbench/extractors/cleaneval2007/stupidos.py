"""StupidOS, "a high-precision approach to boilerplate removal" (CleanEval 2007 score 71.6 %,
papers/002 "StupidOS"): trigram language models of clean text and of boilerplate over the
page's text lines.

The slides' phases, in order:

1. *Preprocessing*: images and comments removed, ``<br/>`` turned into paragraph breaks, the
   page converted to plain text with Lynx. Here: the page's rendered lines (runs of canonical
   blocks between line breaks, a new line at every block-level tag and ``<br>``: what a text
   browser lays out), which already have no images, comments or scripts.
2. *Regular-expression cleaning*: lines that are boilerplate by their form are dropped before
   any model sees them: ``max_pipes`` or more ``|`` separators (the slides' footers "with
   many |"), a copyright notice, or no letter at all.
3. *Splitting* into the units the output is made of: each line is a ``<p>``, ``<h>`` (a line
   in ``h1``-``h6``) or ``<l>`` (in ``li``) segment, as StupidOS split at those tags.
4. *Language models*: word trigram models with interpolated (Jelinek-Mercer) smoothing,
   ``P(w | u v) = l3 P3 + l2 P2 + l1 P1 + l0 / V`` with ``lambdas`` = (l3, l2, l1, l0); the
   clean model is trained on the gold (hand-cleaned) text of the training pages, the
   boilerplate model on what cleaning removed: the text of their blocks the aligner labels
   not content ("the difference between the uncleaned and the cleaned text"). Lines are
   sentences with ``<s>``/``</s>`` padding; words seen once in training become ``<unk>``.
5. *Decision*: a line is kept when its log-likelihood ratio per token,
   ``(log P_clean(line) - log P_boiler(line)) / (tokens + 1)``, exceeds ``threshold``
   (0: more likely clean than boilerplate; higher values trade recall for the precision
   StupidOS was named for).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError, TrainingDataError
from boilerbench.extractors.base import BaseExtractor, Extraction, Tags, require_fitted
from boilerbench.extractors.cleaneval2007.lines import block_lines, line_texts
from boilerbench.tokenizer import normalise_tokens

_COPYRIGHT = re.compile(r"(?i)©|\(c\)\s*\d{4}|copyright|all rights reserved")
_LETTER = re.compile(r"[^\W\d_]")
_HEADING_PATH = re.compile(r"/h[1-6](/|$)")
_LIST_PATH = re.compile(r"/li(/|$)")
UNK = "<unk>"


class TrigramLM:
    """A word trigram model with Jelinek-Mercer interpolation down to a uniform distribution."""

    def __init__(self, lambdas: Sequence[float]) -> None:
        self.lambdas = tuple(lambdas)

    def fit(self, sentences: Sequence[Sequence[str]], vocabulary: frozenset[str]) -> TrigramLM:
        self.vocabulary = vocabulary
        self.uni: Counter = Counter()
        self.bi: Counter = Counter()
        self.tri: Counter = Counter()
        self.ctx1: Counter = Counter()
        self.ctx2: Counter = Counter()
        for sentence in sentences:
            words = ["<s>", "<s>", *(w if w in vocabulary else UNK for w in sentence), "</s>"]
            for k in range(2, len(words)):
                u, v, w = words[k - 2], words[k - 1], words[k]
                self.uni[w] += 1
                self.bi[v, w] += 1
                self.tri[u, v, w] += 1
                self.ctx1[v] += 1
                self.ctx2[u, v] += 1
        self.total = sum(self.uni.values())
        self.size = len(vocabulary) + 2  # + <unk> and </s>
        return self

    def logprob(self, sentence: Sequence[str]) -> float:
        """Natural log-probability of a sentence (with its end marker)."""
        l3, l2, l1, l0 = self.lambdas
        words = ["<s>", "<s>", *(w if w in self.vocabulary else UNK for w in sentence), "</s>"]
        total = 0.0
        for k in range(2, len(words)):
            u, v, w = words[k - 2], words[k - 1], words[k]
            p = l0 / self.size
            if self.total:
                p += l1 * self.uni[w] / self.total
            if self.ctx1[v]:
                p += l2 * self.bi[v, w] / self.ctx1[v]
            if self.ctx2[u, v]:
                p += l3 * self.tri[u, v, w] / self.ctx2[u, v]
            total += math.log(p)
        return total


class StupidOS(BaseExtractor):
    """StupidOS: regex cleaning, then a clean-vs-boilerplate trigram likelihood ratio per line."""

    def __boilerbench_tags__(self) -> Tags:
        return replace(super().__boilerbench_tags__(), learns=True)

    def __init__(
        self,
        lambdas: Sequence[float] = (0.5, 0.3, 0.15, 0.05),
        threshold: float = 0.0,
        max_pipes: int = 2,
        min_count: int = 2,
    ) -> None:
        weights = tuple(float(x) for x in lambdas)
        if len(weights) != 4 or min(weights) < 0 or weights[3] <= 0 or abs(sum(weights) - 1) > 1e-6:
            raise ConfigError(f"lambdas must be 4 non-negative weights summing to 1, the last > 0, got {weights}")
        if max_pipes < 1 or min_count < 1:
            raise ConfigError(f"need max_pipes >= 1 and min_count >= 1, got {max_pipes}, {min_count}")
        self.lambdas = lambdas
        self.threshold = threshold
        self.max_pipes = max_pipes
        self.min_count = min_count

    def regex_boilerplate(self, line: str) -> bool:
        """Phase 2: a line dropped for its form alone."""
        return line.count("|") >= self.max_pipes or bool(_COPYRIGHT.search(line)) or not _LETTER.search(line)

    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> StupidOS:
        clean: list[list[str]] = []
        boiler: list[list[str]] = []
        for page in train:
            tokenizer = page.tokenizer
            markup = page.meta.get("gold_markup") or page.gold_text
            clean.extend(t for line in re.split(r"\n|<[phlPHL]>", markup) if (t := normalise_tokens(line, tokenizer)))
            blocks = page.blocks
            if len(blocks):
                labels = page.gold_labels
                line_of = block_lines(blocks)
                for k, text in enumerate(line_texts(blocks, line_of)):
                    in_line = labels[line_of == k]
                    if (in_line == 0).all() and (tokens := normalise_tokens(text, tokenizer)):
                        boiler.append(tokens)
        if not clean or not boiler:
            raise TrainingDataError("StupidOS needs training pages with both gold text and boilerplate")
        counts = Counter(w for s in clean for w in s) + Counter(w for s in boiler for w in s)
        vocabulary = frozenset(w for w, c in counts.items() if c >= self.min_count)
        self.clean_ = TrigramLM(self.lambdas).fit(clean, vocabulary)
        self.boiler_ = TrigramLM(self.lambdas).fit(boiler, vocabulary)
        return self

    def line_scores(self, page: Page) -> tuple[np.ndarray, list[str], np.ndarray]:
        """Per line: the log-likelihood ratio per token (-inf for lines the regexes drop), the
        line texts, and the line of every block."""
        require_fitted(self, "clean_")
        blocks = page.blocks
        line_of = block_lines(blocks)
        lines = line_texts(blocks, line_of)
        scores = np.full(len(lines), -np.inf)
        seen: dict[str, float] = {}  # repeated lines (navigation, bylines) are scored once
        for k, line in enumerate(lines):
            if line in seen:
                scores[k] = seen[line]
                continue
            if not self.regex_boilerplate(line):
                tokens = normalise_tokens(line, blocks.tokenizer)
                ratio = self.clean_.logprob(tokens) - self.boiler_.logprob(tokens)
                scores[k] = ratio / (len(tokens) + 1)
            seen[line] = scores[k]
        return scores, lines, line_of

    def extract(self, page: Page) -> Extraction:
        if len(page.blocks) == 0:
            return Extraction(text="", labels=np.zeros(0, np.int8), markup="")
        scores, _, line_of = self.line_scores(page)
        keep = scores > self.threshold
        blocks = page.blocks
        kinds = [""] * len(blocks)
        previous = -1
        for i, line in enumerate(line_of):
            if line != previous:
                path = blocks.paths[i]
                kinds[i] = "h" if _HEADING_PATH.search(path) else "l" if _LIST_PATH.search(path) else "p"
                previous = line
        return Extraction.from_labels(page, keep[line_of].astype(np.int8), kinds=kinds)
