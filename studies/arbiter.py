"""The arbiter's selector (:mod:`boilerbench.extractors.arbiter`) fitted on the training mixture's
validation pages alone, the design the arbiter replaced by out-of-fold rows: a fitted stack and
Readability extract every validation page of the mixture (and, with ``--test``, the test pages of
the datasets named, which are read to report, never to choose); each page's selector features and
both token F1s are written to ``--rows``, a CSV, once. The selector is then fitted on the validation
pages, and scored with each threshold by leaving one validation dataset out at a time (fitted on the
others' pages, scored on its own) and on the test pages, per dataset and per DANIEL and
magic-html-bench language: the mean token F1 of the choice minus the stack's, with the number of
pages sent to Readability.

    BOILERBENCH_DATA=../shared/datasets python -m studies.arbiter stack=models/stack/KEY \\
        --rows ../runs/arbiter_rows.csv [--test daniel,magic_html,wcxb,...]
"""

from __future__ import annotations

import argparse
import csv
from collections import defaultdict
from pathlib import Path

import numpy as np

from benchmarks.common import run_main
from boilerbench.cache import set_cache_dir
from boilerbench.configs import make_extractor
from boilerbench.errors import ConfigError
from boilerbench.evaluation.token import token_prf
from boilerbench.experiments.runner import build
from boilerbench.extractors.arbiter import EXTRACTION_FEATURES, Selector, extract_or_empty, extraction_features
from boilerbench.extractors.sharing import sharing
from studies.stack_validation import groups_of, load_stack, mixture_datasets

COLUMNS = ("dataset", "part", "page_id", "group", "stack_f1", "alternative_f1", *EXTRACTION_FEATURES)


def write_rows(stack_dir: Path, test: list[str], path: Path) -> None:
    """Extract the mixture's validation pages (and ``test``'s test pages) with the stack and
    Readability and write each page's row."""
    stack = load_stack(stack_dir)
    alternative = make_extractor("readability", [])
    parts = [(name, "validation", node) for name, node in mixture_datasets().items()]
    parts += [(name, "test", node) for name, node in mixture_datasets(test).items()] if test else []
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(COLUMNS)
        for dataset, part, node in parts:
            split = build(node).load()
            pages = split.validation if part == "validation" else (split.test or split.train)
            for page in pages:
                if page.load_error or not page.gold_text.strip():
                    continue
                try:
                    with sharing(page):
                        ours, theirs = stack.extract(page), extract_or_empty(alternative, page)
                except Exception:  # noqa: BLE001 -- a page the stack refuses is not a row (the runner records it)
                    continue
                if not theirs.text.strip():
                    continue  # the arbiter keeps the stack's extraction there
                f1 = [token_prf(e.text, page.gold_text, page.tokenizer).f1 for e in (ours, theirs)]
                group = "|".join(groups_of(dataset, page)[1:])
                writer.writerow([dataset, part, page.id, group, *f1, *extraction_features(ours, theirs)])
                page.release()


def read_rows(path: Path) -> dict[str, np.ndarray]:
    with path.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    table = {c: np.array([r[c] for r in rows]) for c in ("dataset", "part", "group")}
    for c in ("stack_f1", "alternative_f1", *EXTRACTION_FEATURES):
        table[c] = np.array([float(r[c]) for r in rows])
    return table


def report(table: dict[str, np.ndarray], thresholds: list[float]) -> None:
    """Leave-one-dataset-out on the validation pages, then the selector fitted on all of them
    on the test pages; each cell: mean token F1 gain over the stack (pages sent on)."""
    X = np.column_stack([table[f] for f in EXTRACTION_FEATURES])
    gain = table["alternative_f1"] - table["stack_f1"]
    validation = table["part"] == "validation"
    print("| threshold | part | rows | pages | stack | Readability | choice − stack | sent |")
    print("|---|---|---|---|---|---|---|---|")
    choice = {t: np.zeros(len(gain), dtype=bool) for t in thresholds}
    for held in np.unique(table["dataset"][validation]):
        out = validation & (table["dataset"] == held)
        p = Selector.fit(X[validation & ~out], gain[validation & ~out], 0).probability(X[out])
        for t in thresholds:
            choice[t][out] = p > t
    p = Selector.fit(X[validation], gain[validation], 0).probability(X[~validation])
    for t in thresholds:
        choice[t][~validation] = p > t
    cells: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i in range(len(gain)):
        for key in [table["dataset"][i], *[g for g in str(table["group"][i]).split("|") if g]]:
            cells[(str(table["part"][i]), key)].append(i)
    for t in thresholds:
        for (part, key), index in sorted(cells.items()):
            ix = np.array(index)
            chosen = np.where(choice[t][ix], table["alternative_f1"][ix], table["stack_f1"][ix])
            print(
                f"| {t} | {part} | {key} | {len(ix)} | {table['stack_f1'][ix].mean():.4f} | "
                f"{table['alternative_f1'][ix].mean():.4f} | {(chosen - table['stack_f1'][ix]).mean():+.4f} | "
                f"{int(choice[t][ix].sum())} |"
            )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stack", nargs="?", help="stack=DIR: the fitted stack's model folder (to write the rows)")
    parser.add_argument("--rows", required=True, help="the rows' CSV (written when a stack is given)")
    parser.add_argument("--test", default="", help="datasets whose test pages are also extracted")
    parser.add_argument("--thresholds", default="0.5,0.6,0.7")
    parser.add_argument("--cache", default=str(Path(__file__).resolve().parents[1] / ".cache" / "boilerbench"))
    args = parser.parse_args(argv)
    set_cache_dir(args.cache)
    rows = Path(args.rows)
    if args.stack:
        if not args.stack.startswith("stack="):
            raise ConfigError("give the stack as stack=DIR")
        write_rows(Path(args.stack.split("=", 1)[1]), [d for d in args.test.split(",") if d], rows)
    report(read_rows(rows), [float(t) for t in args.thresholds.split(",")])
    return 0


if __name__ == "__main__":
    run_main(main)
