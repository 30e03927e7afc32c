"""The issue-33 ablation of the stack on WCXB's validation pages: one fit per feature set, then the
decode-time options (``item_pooling`` and ``item_level``, ``product_fallback``) scored on the same
fitted model, per page type.

The stack (``decoding=by_page_type``, the headline decoding) is fitted on WCXB's training pages with
early stopping on its validation pages, as ``python run.py extractor=stack dataset=wcxb
evaluate_on=validation`` does, and saved under ``--models`` (a second call with the same NAME loads
it). Each validation page is scored as the runner scores it: mean token F1 and WCXB's word F1 over
the pages. The test pages are never read.

    BOILERBENCH_DATA=../shared/datasets python -m studies.stack_ablation NAME [param=value ...] [--sweep]

e.g. ``items item_groups=true --sweep``; ``param`` is any Stack hyperparameter (JSON values).
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from benchmarks.common import run_main
from boilerbench.cache import set_cache_dir
from boilerbench.datasets.wcxb import WCXB
from boilerbench.errors import ConfigError
from boilerbench.evaluation.token import token_prf, word_prf
from boilerbench.extractors.stack import Stack
from boilerbench.extractors.stack.structured import fallback_text

ROOT = Path(__file__).resolve().parents[1]
TYPES = ("ALL", "article", "documentation", "forum", "listing", "collection", "product", "service")
#: (item_pooling, item_level) scored with --sweep.
SWEEP = (
    (0.0, "outer"),
    (0.25, "outer"),
    (0.5, "outer"),
    (0.75, "outer"),
    (1.0, "outer"),
    (0.5, "inner"),
    (1.0, "inner"),
)


def parse(argv: list[str]) -> tuple[str, dict, bool]:
    """The run's name, the stack's hyperparameters and whether to sweep the pooling."""
    if not argv or "=" in argv[0]:
        raise ConfigError("usage: python -m studies.stack_ablation NAME [param=value ...] [--sweep]")
    params: dict = {"decoding": "by_page_type"}
    for item in argv[1:]:
        if item == "--sweep":
            continue
        key, _, value = item.partition("=")
        try:
            params[key] = json.loads(value)
        except ValueError:
            params[key] = value
    return argv[0], params, "--sweep" in argv


def main(argv: list[str]) -> int:
    name, params, sweep = parse(argv)
    set_cache_dir(ROOT / ".cache" / "boilerbench")
    split = WCXB(split="wcxb").load()
    folder = ROOT / "models" / "stack_ablation" / name
    stack = Stack(**params)
    start = time.perf_counter()
    if (folder / "stack.json").exists():
        stack.load(folder)
    else:
        stack.fit(split.train, split.validation)
        folder.mkdir(parents=True, exist_ok=True)
        stack.save(folder)
    print(f"{name}: fit {time.perf_counter() - start:.0f} s, {stack.run_info()}")
    variants = SWEEP if sweep else ((stack.item_pooling, stack.item_level),)
    scores: dict[str, dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    right = []
    for page in split.validation:
        if page.load_error:
            continue
        rows, layout = stack._rows(page), stack._layout(page)
        p = stack.probabilities(rows, page, layout)
        summary = stack._summary(rows, layout)
        right.append(stack.gate_.page_type(summary) == page.page_type)
        for pooling, level in variants:
            stack.item_pooling, stack.item_level = pooling, level
            if pooling and layout.items is None:
                continue
            labels = stack.decode(stack._pool(p, layout), page.blocks.word_counts, stack.gate_.decoding_of(summary))
            text = page.blocks.join(labels.astype(bool))
            extra = fallback_text(page.blocks, text)
            for fallback, shown in ((False, text), (True, f"{text}\n\n{extra}" if extra else text)):
                key = f"pool={pooling},{level},fallback={fallback}"
                pair = (token_prf(shown, page.gold_text, page.tokenizer).f1, word_prf(shown, page.gold_text).f1)
                for group in ("ALL", str(page.page_type)):
                    scores[key][group].append(pair)
        page.release()
    print("token F1 / word F1".ljust(30) + "".join(t[:6].rjust(13) for t in TYPES))
    for key, by_type in scores.items():
        cells = [f"{np.mean([a for a, _ in by_type[t]]):.3f}/{np.mean([b for _, b in by_type[t]]):.3f}" for t in TYPES]
        print(key.ljust(30) + "".join(c.rjust(13) for c in cells))
    print(
        f"page-type accuracy {np.mean(right):.3f}; pages { ({t: len(next(iter(scores.values()))[t]) for t in TYPES}) }"
    )
    return 0


if __name__ == "__main__":
    run_main(main)
