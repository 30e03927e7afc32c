"""The WCC team's five systems (ISLA, Universiteit van Amsterdam; CleanEval 2007, papers/002
"Web Corpus Cleaning using Content and Structure"), one ``method`` each, all over the page's
rendered lines (runs of canonical blocks between line breaks: a block-level tag or ``<br>``
before a block starts a new line), so every decision maps back onto the blocks.

- ``heuristic`` (their entry, 74.2 %): a line longer than ``min_line_chars`` characters with
  more than ``min_words`` words whose average length exceeds ``min_avg_word_length`` is a
  paragraph (``<p>``) and kept. Any other line of more than ``min_line_chars`` characters
  becomes the *possible title*; when a paragraph follows it within fewer than ``title_lines``
  lines, the title is kept too, as its header (``<h>``). Lists are not treated specially.
- ``baseline`` (62.2 % in their report): every line is a ``<p>`` paragraph.
- ``tree`` (52.4 %): a decision tree (scikit-learn CART, ``tree_max_depth``,
  ``tree_min_leaf``) learned on the training pages over the slide's line features: number of
  words, parent tag (one-hot over the training lines' ``tree_tags`` most frequent tags),
  share of words starting with a capital, and words per punctuation mark. A training line's
  label is content when most of its tokens lie in blocks the aligner labels content.
- ``lm`` (60.6 %): the information-retrieval view of the slides: the page's headings
  (``h1``-``h6`` and ``title``) are the query, each line a document; unigram language models,
  each line's smoothed with the page's (Jelinek-Mercer, weight ``lm_smoothing`` on the page
  model); a line is kept when ``KL(query || line) < lm_max_kl``. The slides say "smaller
  than a given constant" without the constant: ``lm_max_kl`` null (default) learns it in
  ``fit`` as the threshold that maximises token-weighted line accuracy on the training pages.
  A page without headings uses its most frequent non-trivial words (the top ``lm_query_words``
  of length > 3) as the query.
- ``genetic``: rule trees evolved by a genetic algorithm. A tree is an OR of positive leaves
  minus an OR of negative leaves; a leaf is a regular expression matched against a line's
  ``"<tag path> | <text>"`` signature, drawn from a pool (the ``ga_tags`` most frequent tags
  of the training lines as path patterns plus fixed text patterns: sentence end, digits, ``|``
  separators, copyright, dates, capitalised start, long lines). Fitness is the slides' faster
  variant: +2 per selected word that is content (in the gold), -1 per selected word that is
  not. Tournament selection (3), one-point crossover of the positive and negative leaf lists,
  mutation (add, drop or replace one leaf), the best ``ga_elite`` kept, ``ga_population``
  trees for ``ga_generations`` generations from seed ``ga_seed``; the run time of the search
  is the run's ``fit_s``, and the best tree is kept as ``rules_``.

Published figures of the variants come from the team's own report on their development data,
not from the organisers' final scoring; only the heuristic was the 2007 entry.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from boilerbench.datasets.blocks import Blocks
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError, TrainingDataError, check_choice
from boilerbench.extractors.base import BaseExtractor, Extraction, Tags, require_fitted
from boilerbench.extractors.cleaneval2007.lines import block_lines, line_texts
from boilerbench.tokenizer import normalise_tokens

METHODS = ("heuristic", "baseline", "tree", "lm", "genetic")
_PUNCT = re.compile(r"[^\w\s]")
#: the fixed text patterns of the genetic search's leaf pool
TEXT_PATTERNS = (
    r"[.!?][\"')\]]?$",
    r"\d",
    r"^\W*\d+\W*$",
    r"\|",
    r"(?i)©|copyright|all rights reserved",
    r"\b(19|20)\d\d\b",
    r"\| [A-Z]",
    r"\| .{120,}",
    r"\| .{40,}",
    r"\| \S+( \S+){0,3}$",
    r"(?i)\b(home|login|search|contact|privacy|next|previous|more)\b",
    r"\w+ \w+ \w+ \w+ \w+ \w+ \w+ \w+",
    r", ",
)


def wcc_lines(
    lines: Sequence[str],
    min_words: int = 10,
    min_avg_word_length: float = 3.0,
    min_line_chars: int = 3,
    title_lines: int = 3,
) -> np.ndarray:
    """What the heuristic makes of each line: ``p`` (paragraph), ``h`` (its title) or ``""`` (dropped)."""
    kinds = np.full(len(lines), "", dtype=object)
    title, since = -1, 0
    for k, line in enumerate(lines):
        since += 1
        if len(line) <= min_line_chars:
            continue
        words = line.split()
        if len(words) > min_words and sum(map(len, words)) / len(words) > min_avg_word_length:
            if title >= 0 and since < title_lines:
                kinds[title] = "h"
            title = -1
            kinds[k] = "p"
        else:
            title, since = k, 0
    return kinds


def line_features(texts: Sequence[str], tags: Sequence[str], vocabulary: Sequence[str]) -> np.ndarray:
    """The decision tree's features per line: words, capitalised share, words per punctuation
    mark, and a one-hot of the parent tag over ``vocabulary`` (last column: any other tag)."""
    index = {t: i for i, t in enumerate(vocabulary)}
    out = np.zeros((len(texts), 3 + len(vocabulary) + 1))
    for k, (text, tag) in enumerate(zip(texts, tags, strict=True)):
        words = text.split()
        n = len(words)
        out[k, 0] = n
        out[k, 1] = sum(w[0].isupper() for w in words) / n if n else 0.0
        out[k, 2] = n / (len(_PUNCT.findall(text)) + 1)
        out[k, 3 + index.get(tag, len(vocabulary))] = 1.0
    return out


class _Lines:
    """A page's lines: their texts, parent tags, signatures, word counts and (for training) content words."""

    def __init__(self, blocks: Blocks) -> None:
        self.line_of = block_lines(blocks)
        self.texts = line_texts(blocks, self.line_of)
        first = np.flatnonzero(np.r_[True, np.diff(self.line_of) != 0]) if len(self.line_of) else np.zeros(0, int)
        self.paths = [blocks.paths[i] for i in first]
        self.tags = [p.rsplit("/", 1)[-1] for p in self.paths]
        self.signatures = [f"{p} | {t}" for p, t in zip(self.paths, self.texts, strict=True)]
        self.first_block = first

    def token_counts(self, blocks: Blocks, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Tokens per line in content blocks and in the others."""
        n = len(self.texts)
        per_block = np.fromiter(map(len, blocks.tokens), dtype=np.int64, count=len(blocks))
        content = np.bincount(self.line_of, weights=per_block * (labels == 1), minlength=n)
        other = np.bincount(self.line_of, weights=per_block * (labels != 1), minlength=n)
        return content, other


class WCC(BaseExtractor):
    """WCC's systems: ``method`` heuristic (the 2007 entry), baseline, tree, lm or genetic."""

    def __boilerbench_tags__(self) -> Tags:
        return replace(super().__boilerbench_tags__(), learns=True)

    def __init__(
        self,
        method: str = "heuristic",
        min_words: int = 10,
        min_avg_word_length: float = 3.0,
        min_line_chars: int = 3,
        title_lines: int = 3,
        tree_max_depth: int = 8,
        tree_min_leaf: int = 20,
        tree_tags: int = 20,
        lm_smoothing: float = 0.5,
        lm_max_kl: float | None = None,
        lm_query_words: int = 10,
        ga_population: int = 40,
        ga_generations: int = 30,
        ga_elite: int = 4,
        ga_tags: int = 30,
        ga_seed: int = 0,
    ) -> None:
        check_choice("extractor.method", method, METHODS)
        if not 0 < lm_smoothing < 1:
            raise ConfigError(f"lm_smoothing must lie in (0, 1), got {lm_smoothing}")
        if ga_population < 2 or ga_generations < 1 or not 0 <= ga_elite < ga_population:
            raise ConfigError("need ga_population >= 2, ga_generations >= 1 and 0 <= ga_elite < ga_population")
        self.method = method
        self.min_words = min_words
        self.min_avg_word_length = min_avg_word_length
        self.min_line_chars = min_line_chars
        self.title_lines = title_lines
        self.tree_max_depth = tree_max_depth
        self.tree_min_leaf = tree_min_leaf
        self.tree_tags = tree_tags
        self.lm_smoothing = lm_smoothing
        self.lm_max_kl = lm_max_kl
        self.lm_query_words = lm_query_words
        self.ga_population = ga_population
        self.ga_generations = ga_generations
        self.ga_elite = ga_elite
        self.ga_tags = ga_tags
        self.ga_seed = ga_seed

    @property
    def learns(self) -> bool:
        """Whether ``fit`` learns anything (the runner skips fitting heuristics)."""
        return self.method in ("tree", "genetic") or (self.method == "lm" and self.lm_max_kl is None)

    # ----------------------------------------------------------------- fitting
    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> WCC:
        """Learn the tree, the KL threshold or the rules on the training pages (others: nothing)."""
        if not self.learns:
            return self
        pages = [(p, _Lines(p.blocks)) for p in train if len(p.blocks)]
        if not pages:
            raise TrainingDataError(f"WCC method={self.method} needs training pages with text")
        counts = [lines.token_counts(p.blocks, p.gold_labels) for p, lines in pages]
        if self.method == "tree":
            self._fit_tree(pages, counts)
        elif self.method == "lm":
            self._fit_lm(pages, counts)
        else:
            self._fit_genetic(pages, counts)
        return self

    def _fit_tree(self, pages, counts) -> None:
        from sklearn.tree import DecisionTreeClassifier

        tag_counts = Counter(t for _, lines in pages for t in lines.tags)
        self.tags_ = [t for t, _ in tag_counts.most_common(self.tree_tags)]
        x = np.vstack([line_features(lines.texts, lines.tags, self.tags_) for _, lines in pages])
        content = np.concatenate([c for c, _ in counts])
        other = np.concatenate([o for _, o in counts])
        y = (content > other).astype(int)
        tree = DecisionTreeClassifier(
            max_depth=self.tree_max_depth, min_samples_leaf=self.tree_min_leaf, random_state=0
        )
        self.tree_ = tree.fit(x, y)

    def _fit_lm(self, pages, counts) -> None:
        kl = np.concatenate([self._line_kl(p.blocks, lines) for p, lines in pages])
        content = np.concatenate([c for c, _ in counts])
        other = np.concatenate([o for _, o in counts])
        finite = np.isfinite(kl)
        candidates = np.unique(kl[finite])
        if len(candidates) == 0:
            self.max_kl_ = 0.0
            return
        order = np.argsort(kl[finite])
        sorted_kl = kl[finite][order]
        # keeping every line with KL <= t: gain = content tokens kept - other tokens kept
        gain = np.cumsum(content[finite][order] - other[finite][order])
        last = np.r_[sorted_kl[1:] != sorted_kl[:-1], True]
        best = int(np.argmax(np.where(last, gain, -np.inf)))
        self.max_kl_ = float(sorted_kl[best]) + 1e-9 if gain[best] > 0 else 0.0

    def _leaf_pool(self, pages) -> list[str]:
        tag_counts = Counter(t for _, lines in pages for t in lines.tags)
        tags = [t for t, _ in tag_counts.most_common(self.ga_tags)]
        return [rf"/{re.escape(t)} \|" for t in tags] + [rf"/{re.escape(t)}/" for t in tags] + list(TEXT_PATTERNS)

    def _fit_genetic(self, pages, counts) -> None:
        pool = self._leaf_pool(pages)
        compiled = [re.compile(p) for p in pool]
        signatures = [s for _, lines in pages for s in lines.signatures]
        matches = np.array([[bool(c.search(s)) for c in compiled] for s in signatures], dtype=bool)
        content = np.concatenate([c for c, _ in counts])
        other = np.concatenate([o for _, o in counts])
        rng = np.random.default_rng(self.ga_seed)
        n_leaves = len(pool)

        def fitness(tree: tuple[tuple[int, ...], tuple[int, ...]]) -> float:
            positive, negative = tree
            if not positive:
                return 0.0
            keep = matches[:, list(positive)].any(axis=1)
            if negative:
                keep &= ~matches[:, list(negative)].any(axis=1)
            return float(2 * content[keep].sum() - other[keep].sum())

        def random_tree() -> tuple[tuple[int, ...], tuple[int, ...]]:
            pos = tuple(sorted(set(rng.integers(0, n_leaves, rng.integers(1, 4)).tolist())))
            neg = tuple(sorted(set(rng.integers(0, n_leaves, rng.integers(0, 3)).tolist())))
            return pos, neg

        def mutate(tree):
            parts = [list(tree[0]), list(tree[1])]
            side = parts[int(rng.integers(0, 2))]
            action = int(rng.integers(0, 3))
            if action == 0 or not side:
                side.append(int(rng.integers(0, n_leaves)))
            elif action == 1:
                side.pop(int(rng.integers(0, len(side))))
            else:
                side[int(rng.integers(0, len(side)))] = int(rng.integers(0, n_leaves))
            return tuple(sorted(set(parts[0]))), tuple(sorted(set(parts[1])))

        def crossover(a, b):
            cut = [int(rng.integers(0, len(x) + 1)) for x in (a[0], b[0], a[1], b[1])]
            pos = tuple(sorted(set(a[0][: cut[0]] + b[0][cut[1] :])))
            neg = tuple(sorted(set(a[1][: cut[2]] + b[1][cut[3] :])))
            return pos, neg

        population = [random_tree() for _ in range(self.ga_population)]
        scores = [fitness(t) for t in population]
        history = []
        for _ in range(self.ga_generations):
            order = np.argsort(scores)[::-1]
            elite = [population[i] for i in order[: self.ga_elite]]
            children: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
            while len(children) < self.ga_population - self.ga_elite:
                parents = []
                for _ in range(2):
                    entrants = rng.integers(0, len(population), 3)
                    parents.append(population[max(entrants, key=lambda i: scores[i])])
                child = crossover(parents[0], parents[1])
                if rng.random() < 0.5:
                    child = mutate(child)
                children.append(child)
            population = elite + children
            scores = [fitness(t) for t in population]
            history.append(max(scores))
        best = population[int(np.argmax(scores))]
        self.rules_ = {"positive": [pool[i] for i in best[0]], "negative": [pool[i] for i in best[1]]}
        self.fitness_history_ = history

    # -------------------------------------------------------------- extraction
    def _line_kl(self, blocks: Blocks, lines: _Lines) -> np.ndarray:
        """KL(query || line) per line (inf for a line with no token)."""
        tokenizer = blocks.tokenizer
        line_tokens = [normalise_tokens(t, tokenizer) for t in lines.texts]
        page = Counter(t for toks in line_tokens for t in toks)
        total = sum(page.values())
        if total == 0:
            return np.full(len(lines.texts), np.inf)
        query = self._query(blocks, page)
        q_total = sum(query.values())
        out = np.full(len(lines.texts), np.inf)
        lam = self.lm_smoothing
        for k, toks in enumerate(line_tokens):
            if not toks:
                continue
            counts = Counter(toks)
            kl = 0.0
            for word, c in query.items():
                p_q = c / q_total
                p_line = (1 - lam) * counts.get(word, 0) / len(toks) + lam * page.get(word, 0) / total
                kl += p_q * math.log(p_q / p_line)
            out[k] = kl
        return out

    def _query(self, blocks: Blocks, page: Counter) -> Counter:
        """The query: tokens of the page's headings and title that occur in its lines, else its
        most frequent long words."""
        root = blocks.root
        words: Counter = Counter()
        if root is not None:
            for el in root.iter("title", "h1", "h2", "h3", "h4", "h5", "h6"):
                words.update(t for t in normalise_tokens(" ".join(el.itertext()), blocks.tokenizer) if t in page)
        if not words:
            words = Counter(
                dict(Counter({w: c for w, c in page.items() if len(w) > 3}).most_common(self.lm_query_words))
            )
        return words or page

    def line_kinds(self, page: Page) -> tuple[_Lines, np.ndarray]:
        """The page's lines and what the method makes of each (``p``, ``h`` or ``""``)."""
        blocks = page.blocks
        lines = _Lines(blocks)
        n = len(lines.texts)
        if self.method == "heuristic":
            kinds = wcc_lines(
                lines.texts, self.min_words, self.min_avg_word_length, self.min_line_chars, self.title_lines
            )
            return lines, kinds
        if self.method == "baseline":
            keep = np.ones(n, dtype=bool)
        elif self.method == "tree":
            require_fitted(self, "tree_")
            keep = self.tree_.predict(line_features(lines.texts, lines.tags, self.tags_)).astype(bool) if n else []
        elif self.method == "lm":
            threshold = self.lm_max_kl
            if threshold is None:
                require_fitted(self, "max_kl_")
                threshold = self.max_kl_
            keep = self._line_kl(blocks, lines) < threshold
        else:
            require_fitted(self, "rules_")
            positive = [re.compile(p) for p in self.rules_["positive"]]
            negative = [re.compile(p) for p in self.rules_["negative"]]
            keep = np.array(
                [
                    any(r.search(s) for r in positive) and not any(r.search(s) for r in negative)
                    for s in lines.signatures
                ],
                dtype=bool,
            )
        return lines, np.where(np.asarray(keep, dtype=bool), "p", "").astype(object)

    def extract(self, page: Page) -> Extraction:
        if len(page.blocks) == 0:
            return Extraction(text="", labels=np.zeros(0, np.int8), markup="")
        lines, kinds = self.line_kinds(page)
        keep = (kinds != "")[lines.line_of].astype(np.int8)
        block_kinds = np.full(len(page.blocks), "", dtype=object)
        block_kinds[lines.first_block] = kinds
        return Extraction.from_labels(page, keep, kinds=list(block_kinds))
