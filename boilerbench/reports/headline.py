"""The headline table: a learned extractor trained on the mixture of training splits (the stack)
against the reference extractors, dataset by dataset, with paired differences.

The runs come from ``experiment=table_headline``. Per dataset: each extractor's token F1 (and
WCXB's word F1 on wcxb), and for each reference the learned one's difference to it, its paired
page-bootstrap 95 % interval and its paired approximate-randomization p-value
(:func:`reports.significance.compare_pair`, as ``python -m boilerbench.reports compare``); then the token F1
per WCXB page type, with the same paired differences on that type's pages (issue 33, must-show 1).

``table_arbiter`` is the same table for the arbiter (trained on the multilingual mixture) on the
runs of ``experiment=fig_speed_quality``: against its base (``stack_fast``), the headline stack and
the references, on the six headline datasets and Readability's test pages, where issue 29 (must-show
2) allows it to lose no more than 0.005 to the stack.
"""

from __future__ import annotations

import pandas as pd

from boilerbench.reports.ablation import subset_difference
from boilerbench.reports.collect import run_pages
from boilerbench.reports.datasets import DATASETS, PAGE_TYPES, latest_runs
from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.significance import align, compare_pair
from boilerbench.reports.tables import Table, fmt

LEARNED = "stack"
REFERENCES = ("trafilatura", "readability")


def paired_cell(learned: pd.Series, reference: pd.Series, metric: str, page_type: str | None = None) -> str:
    """``+0.014 [+0.000, +0.029], p 0.054``: the learned run minus the reference, paired, on all
    the pages or on those of ``page_type``."""
    if page_type is None:
        a, b = align([run_pages(learned), run_pages(reference)], ["learned", "reference"])
        (d,) = compare_pair(a, b, [metric])
    else:
        d = subset_difference(run_pages(learned), run_pages(reference), "page_type", page_type, metric=metric)
    return f"{d.difference:+.3f} [{d.lo:+.3f}, {d.hi:+.3f}], p {d.pvalue:.3g}"


def table_headline(
    runs: pd.DataFrame,
    learned_name: str = LEARNED,
    references: tuple[str, ...] = REFERENCES,
    table_name: str = "table_headline",
    experiment: str = "table_headline",
) -> Table:
    """One row per dataset with runs of the learned extractor and of every reference, then one
    row per WCXB page type."""
    runs = latest_runs(runs, ["extractor", "dataset"])
    by = {(r["extractor"], r["dataset"]): r for _, r in runs.iterrows()}
    names = (learned_name, *references)
    datasets = [
        d for d in (*DATASETS, *sorted(set(runs["dataset"]) - set(DATASETS))) if all((e, d) in by for e in names)
    ]
    if not datasets:
        raise MissingRuns(f"{', '.join(names)} on a common dataset (experiment={experiment})")
    rows = []
    for dataset in datasets:
        learned = by[(learned_name, dataset)]
        metrics = ["token.f1", *(["word.f1"] if dataset == "wcxb" else [])]
        for metric in metrics:
            row = {"dataset": dataset, "pages": str(int(learned["n_pages"])), "metric": metric}
            for name in names:
                row[name] = fmt(by[(name, dataset)].get(metric))
            for reference in references:
                row[f"{learned_name} − {reference}"] = paired_cell(learned, by[(reference, dataset)], metric)
            rows.append(row)
    if "wcxb" in datasets:
        wcxb = {name: by[(name, "wcxb")] for name in names}
        for page_type in PAGE_TYPES:
            column = f"type.{page_type}.token.f1"
            row = {
                "dataset": f"wcxb: {page_type}",
                "pages": fmt(by[(learned_name, "wcxb")].get(f"type.{page_type}.n_pages"), 0),
            }
            row["metric"] = "token.f1"
            for name in names:
                row[name] = fmt(by[(name, "wcxb")].get(column))
            typed = by[(learned_name, "wcxb")].get(f"type.{page_type}.n_pages")
            for reference in references:
                row[f"{learned_name} − {reference}"] = (
                    paired_cell(wcxb[learned_name], wcxb[reference], "token.f1", page_type)
                    if isinstance(typed, int | float) and typed > 0
                    else "–"
                )
            rows.append(row)
    trained = str(by[(learned_name, datasets[0])].get("trained_on") or "its dataset's own training pages")
    decoding = by[(learned_name, datasets[0])].get("param.decoding")
    decoded = f", decoding {decoding}" if isinstance(decoding, str) else ""
    note = (
        f"{learned_name} trained on {trained}{decoded}; test pages: each dataset's test split, or all its pages "
        "where it has no training split. Differences: the learned extractor minus the reference, with the paired "
        "page-bootstrap 95 % interval and the paired approximate-randomization p-value (10,000 shuffles); per WCXB "
        "page type, on that type's pages. word.f1: WCXB's bag-of-words F1 over lowercased \\w+ runs, its published "
        "figures' metric."
    )
    against = " and ".join([", ".join(references[:-1]), references[-1]] if len(references) > 1 else references)
    return Table(table_name, f"{learned_name} against {against}", pd.DataFrame(rows), note)
