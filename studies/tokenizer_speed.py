"""Which tokens for Chinese: jieba words or single characters? And what the tokenizer costs.

On the hand-made Chinese pages of ``tests/data/chinese`` (or ``--root``), for each extractor
(default SCEDD, BTE, trafilatura), the mean CleanEval score and token F1 of its output under
three tokenizers: ``whitespace`` (CleanEval's rule: a Chinese paragraph is one token), ``zh``
(jieba words, the project's choice) and ``chars`` (every Han character a token: the
``ja`` tokenizer). Then the *chance agreement* that decides between words and characters: the
score of each page's boilerplate alone (the text of its blocks the aligner labels not content)
against its gold, which should be near 0, and the aligner's gold labels under each tokenizer
against the hand labels (a block is content when its text is in the gold). Finally one page
(``--page``) scored by both tokenizers, with its tokens.

``--speed`` instead times the metric tokens on the CleanEval test split (every block text and
gold text, the page's tokenizer as the runner picks it) against CleanEval's former whitespace
rule, and checks that they are identical.

    python -m studies.tokenizer_speed [--root tests/data/chinese] [--extractors scedd,bte,trafilatura]
    BOILERBENCH_DATA=../shared/datasets python -m studies.tokenizer_speed --speed
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from benchmarks.common import run_main
from boilerbench.datasets.align import align_labels
from boilerbench.datasets.blocks import segment
from boilerbench.datasets.plaintext import PlainText
from boilerbench.errors import MissingDependencyError
from boilerbench.evaluation import cleaneval_score, token_prf
from boilerbench.experiments.runner import make_extractor
from boilerbench.tokenizer import normalise_tokens

ROOT = Path(__file__).resolve().parents[1] / "tests" / "data" / "chinese"
#: the name of each tokenizer here -> the tokenizer that implements it
TOKENIZERS = {"whitespace": "whitespace", "words": "zh", "chars": "ja"}


def chinese(args: argparse.Namespace) -> None:
    pages = PlainText(root=args.root).load().test
    print(f"{len(pages)} pages from {args.root}\n")
    print(f"{'extractor':<12} " + " ".join(f"{'CE ' + t:>14} {'F1 ' + t:>12}" for t in TOKENIZERS))
    for name in args.extractors.split(","):
        try:
            extractor = make_extractor(name).fit([], None)
        except MissingDependencyError as err:
            print(f"{name:<12} skipped: {err}")
            continue
        texts = [extractor.extract(p).text for p in pages]
        cells = []
        for tok in TOKENIZERS.values():
            ce = np.mean([cleaneval_score(t, p.gold_text, tok) for t, p in zip(texts, pages, strict=True)])
            f1 = np.mean([token_prf(t, p.gold_text, tok).f1 for t, p in zip(texts, pages, strict=True)])
            cells.append(f"{ce:>14.2f} {f1:>12.3f}")
        print(f"{name:<12} " + " ".join(cells))

    print("\nchance agreement: the boilerplate of each page scored against its gold (ideal 0)")
    print("aligner: gold block labels under each tokenizer against the hand labels (block text in the gold)")
    for label, tok in TOKENIZERS.items():
        chance, agree, total = [], 0, 0
        for page in pages:
            blocks = segment(page.html, language=tok)
            hand = np.array(
                [t.replace(" ", "") in page.gold_text.replace(" ", "") for t in blocks.texts], dtype=np.int8
            )
            labels = align_labels(blocks, page.gold_text)
            agree += int((labels == hand).sum())
            total += len(hand)
            chance.append(cleaneval_score(blocks.join(hand == 0), page.gold_text, tok))
        score = np.mean(chance)
        print(f"  {label:<10} boilerplate CleanEval score {score:6.2f}   aligner = hand on {agree}/{total} blocks")

    page = next(p for p in pages if p.id == args.page)
    extractor = make_extractor("bte").fit([], None)
    text = extractor.extract(page).text
    print(f"\npage {page.id}, BTE's output scored by both tokenizers:")
    for label in ("words", "chars"):
        tok = TOKENIZERS[label]
        pred, gold = normalise_tokens(text, tok), normalise_tokens(page.gold_text, tok)
        ce, f1 = cleaneval_score(text, page.gold_text, tok), token_prf(text, page.gold_text, tok).f1
        print(
            f"  {label:<6} {len(pred)} predicted / {len(gold)} gold tokens, CleanEval {ce:.2f}, token F1 {f1:.3f}; "
            f"first gold tokens: {' '.join(gold[:12])}"
        )


def speed(args: argparse.Namespace) -> None:
    from boilerbench.datasets.cleaneval import CleanEval

    pages = CleanEval(split="cleaneval").load().test
    work = []
    for page in pages:
        tokenizer = page.tokenizer
        work.extend((t, tokenizer) for t in segment(page.html).texts)
        work.append((page.gold_text, tokenizer))
    chars = sum(len(t) for t, _ in work)
    print(f"{len(pages)} CleanEval test pages: {len(work):,} texts, {chars:,} characters")

    def former(text: str) -> list[str]:  # CleanEval's whitespace rule as the metrics had it
        text = text.lower()
        for char in ",;:.?!":
            text = text.replace(char, "")
        return text.split()

    best = {}
    for label, fn in (
        ("former whitespace rule", lambda t, _tok: former(t)),
        ("tokenizer, page's choice", normalise_tokens),
        ("tokenizer, detected per text", lambda t, _tok: normalise_tokens(t)),
    ):
        runs = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            for text, tok in work:
                fn(text, tok)
            runs.append(time.perf_counter() - start)
        best[label] = min(runs)
        print(f"  {label:<30} {1000 * best[label] / len(pages):7.3f} ms per page (best of {args.repeat})")
    same = all(former(t) == normalise_tokens(t, tok) for t, tok in work)
    print(f"  identical tokens on every text: {same}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--extractors", default="scedd,bte,trafilatura")
    parser.add_argument("--page", default="zh_long")
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    speed(args) if args.speed else chinese(args)
    return 0


if __name__ == "__main__":
    run_main(main)
