"""The arbiter's rows of DANIEL's site-grouped cross-validation, or of its headline fit, written once
with the blocks' structure, so that selector features and settings can be compared without refitting
a stack.

For each fold of the cross-validation job ``table_languages_cv_stack/2_arbiter_daniel`` (the same
overrides, so the same folds and mixture), or with ``--headline`` for the headline fit
(``+headline=arbiter``, written as fold 0), the fitted arbiter is loaded from the model cache (the
job fitted it), and its fit is replayed without its final stack fit: the selector's out-of-fold
rows (two stacks fitted on the training pages' halves by site, each extracting the other half),
the validation pages' rows from the loaded stack, and then the fold's test pages. The replay must
give the loaded selector's very trees; whether it does is printed, with both fits' row counts.

Each page's row (one JSON line, in ``--out/fold<N>.jsonl.gz``) holds where it comes from
(``part``: ``oof``, ``validation`` or ``test``; source, id, site group; ``count``: how often the
fit's weighted mixture holds the page, 1 for a test page), the token F1 of both
extractions, the stack's ``doubt`` and page type, and per block of the page: its words, the
stack's label, whether it sits in a link, the share of its token pairs that the
alternative's extraction holds, and its tag path's number within the page. ``studies.arbiter_structure`` reads
them.

    BOILERBENCH_DATA=../shared/datasets python -m studies.arbiter_rows --folds 1,2,3 --out ../runs/arbiter_rows
    BOILERBENCH_DATA=../shared/datasets python -m studies.arbiter_rows --headline --out ../runs/arbiter_headline
"""

from __future__ import annotations

import argparse
import gzip
import json
import types
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from hydra import compose, initialize_config_dir

from benchmarks.common import run_main
from boilerbench.cache import set_cache_dir
from boilerbench.configs import CONF_DIR, build
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.evaluation.token import token_prf
from boilerbench.experiments.protocols import configured_protocol
from boilerbench.experiments.runner import fit_extractor
from boilerbench.experiments.seed import seed_everything
from boilerbench.extractors.arbiter import (
    Arbiter,
    block_cover,
    block_structure,
    extract_or_empty,
    extraction_features,
    page_group,
)
from boilerbench.extractors.base import Extraction
from boilerbench.extractors.sharing import sharing

#: The overrides of the job ``table_languages_cv_stack/2_arbiter_daniel``.
CV_OVERRIDES = [
    "+headline=arbiter",
    "dataset=daniel",
    "dataset.split=all",
    "cv.folds=5",
    "cv.pool=all",
    "train_on=[cleaneval,dragnet,wcxb,daniel:all,magic_html]",
    "experiment=table_languages_cv_stack",
    "paths.root_dir=.",
]
#: The overrides of the headline fit (its one fit is written as fold 0).
HEADLINE_OVERRIDES = ["+headline=arbiter", "paths.root_dir=."]


def block_row(page: Page, ours: Extraction, theirs: Extraction) -> dict:
    """Per block: words, the base's label, in a link, the share of its token pairs in the
    alternative's text, and its tag path's number in the page (the arbiter's own helpers)."""
    link, path = block_structure(page.blocks)
    return {
        "words": page.blocks.word_counts.astype(int).tolist(),
        "label": [] if ours.labels is None else ours.labels.astype(int).tolist(),
        "link": link.tolist(),
        "cover": block_cover(page.blocks, theirs.text).tolist(),
        "path": path.tolist(),
    }


def page_row(page: Page, ours: Extraction, theirs: Extraction, part: str, count: int = 1) -> dict:
    """One page's row (see the module's docstring)."""
    gold, tokenizer = page.gold_text, page.tokenizer
    return {
        "part": part,
        "count": count,
        "source": page.source,
        "id": page.id,
        "group": page_group(page),
        "language": page.language,
        "f1_base": token_prf(ours.text, gold, tokenizer).f1,
        "f1_alternative": token_prf(theirs.text, gold, tokenizer).f1,
        "alternative_empty": not theirs.text.strip(),
        "features": [None if x != x else float(x) for x in extraction_features(ours, theirs)],
        "doubt": ours.info.get("doubt"),
        "page_type": ours.info.get("predicted_page_type"),
        "page_type_confidence": ours.info.get("page_type_confidence"),
        **block_row(page, ours, theirs),
    }


def recording(arbiter: Arbiter, out: list[dict], parts: list[str]):
    """A ``_rows`` for ``arbiter`` that also appends each distinct page's row to ``out``, its part
    taken from ``parts`` (one entry per call: ``oof`` for fold stacks, ``validation`` for the
    final one)."""
    original = Arbiter._rows

    def rows(self: Arbiter, base, pages: Sequence[Page]):
        part = parts.pop(0)
        done: dict[int, tuple[Extraction, Extraction]] = {}
        counts = Counter(id(page) for page in pages)
        for page in pages:
            if id(page) not in done:
                with sharing(page):
                    done[id(page)] = base.extract(page), extract_or_empty(self.alternative, page)
                out.append(page_row(page, *done[id(page)], part, counts[id(page)]))
        # the arbiter's own rows from the same extractions (each page extracted once)
        base.extract = lambda page: done[id(page)][0]
        self.alternative.extract = lambda page: done[id(page)][1]
        try:
            return original(self, base, pages)
        finally:
            del base.extract, self.alternative.extract

    return types.MethodType(rows, arbiter)


def replay(fold: int, out_dir: Path) -> None:
    """Write the rows of one cross-validation fold, or of the headline fit for fold 0 (see the
    module's docstring)."""
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=HEADLINE_OVERRIDES if fold == 0 else CV_OVERRIDES)
    set_cache_dir(cfg.paths.cache_dir)
    split = build(cfg.dataset).load()
    plan = configured_protocol(cfg).resolve(cfg, split, True).plan(cfg, split)
    fit = plan.fits[max(fold, 1) - 1]
    seed_everything(int(cfg.seed))
    fitted = build(cfg.extractor)
    _, loaded = fit_extractor(fitted, cfg, fit.source, fit.training, **fit.identity)
    if not loaded:
        raise ConfigError(f"fold {fold}'s arbiter was not in the model cache: it was fitted now, not replayed")
    with sharing(fit.test[0]):  # the row code on one page before the hour of fits
        page_row(
            fit.test[0], fitted.base.extract(fit.test[0]), extract_or_empty(fitted.alternative, fit.test[0]), "test"
        )
    arbiter = build(cfg.extractor)
    rows: list[dict] = []
    parts = ["oof"] * arbiter.selector_folds + ["validation"]
    arbiter._rows = recording(arbiter, rows, parts)  # type: ignore[method-assign]
    final = fitted.base
    arbiter.base = final
    final.fit = lambda train, validation=None: final  # type: ignore[method-assign]  # loaded, not refitted
    seed_everything(int(cfg.seed))
    arbiter.fit(
        [p for p in fit.training.train if not p.load_error], [p for p in fit.training.validation if not p.load_error]
    )
    same = arbiter.selector_.text == fitted.selector_.text
    print(f"fold {fold}: replayed {arbiter.fit_info_}, the job's {fitted.fit_info_}, same trees: {same}", flush=True)
    for page in fit.test:
        if page.load_error or not page.gold_text.strip():
            continue
        with sharing(page):
            ours, theirs = final.extract(page), extract_or_empty(fitted.alternative, page)
        rows.append(page_row(page, ours, theirs, "test"))
    out_dir.mkdir(parents=True, exist_ok=True)
    with gzip.open(out_dir / f"fold{fold}.jsonl.gz", "wt", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps({"fold": fold, **row}) + "\n")
    print(f"fold {fold}: {len(rows)} rows, threshold {fitted.threshold_}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folds", default="1,2,3,4,5", help="the folds to replay, comma-separated")
    parser.add_argument("--headline", action="store_true", help="replay the headline fit instead (fold 0)")
    parser.add_argument("--out", type=Path, required=True, help="the folder of the rows")
    args = parser.parse_args(argv)
    for fold in [0] if args.headline else (int(f) for f in args.folds.split(",")):
        replay(fold, args.out)
    return 0


if __name__ == "__main__":
    run_main(main)
