"""Whether comments are main content (``table_comments``, issue 29, must-show 2): the runs of
``experiment=table_comments``, the arbiter, its two sides (the fast stack and Readability) and
trafilatura on Dragnet's test pages, scored against Dragnet's gold without its comments
(``dragnet``, the headline's) and with them (``dragnet_comments``).

The field's datasets disagree on what a page's comments, a blog's further posts or a hotel's
reviews are. Dragnet's gold (by default) and DANIEL's leave them out; CleanEval's keeps them.
Readability takes one element, and where the fast stack keeps comments after an article it leaves
them out, so a selector that learns from news pages learns to send such pages to Readability, and
pays for it where the gold keeps them. One dataset scored under both golds measures that on the
same pages with the same extractions: the arbiter's and Readability's paired differences to the
fast stack under each gold, on all the test pages and on those whose gold has comments."""

from __future__ import annotations

import pandas as pd

from boilerbench.evaluation.aggregates import point_value
from boilerbench.reports.ablation import difference_cell
from boilerbench.reports.collect import run_pages
from boilerbench.reports.datasets import latest_runs
from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.significance import align, compare_pair, figure_key
from boilerbench.reports.tables import Table

#: The two golds: dataset config name and how the table names it.
GOLDS = {"dragnet": "without comments", "dragnet_comments": "with comments"}
BASE = "stack_fast"
EXTRACTORS = ("arbiter", BASE, "readability", "trafilatura")
COMPARED = ("arbiter", "readability")
METRIC = "token.f1"


def commented_pages(without: pd.DataFrame, with_comments: pd.DataFrame) -> set[str]:
    """The pages whose gold has more tokens with its comments than without: those with comments."""
    a, b = align([without, with_comments], list(GOLDS.values()))
    return set(a.loc[b["n_gold_tokens"].to_numpy() > a["n_gold_tokens"].to_numpy(), "page_id"].astype(str))


def table_comments(runs: pd.DataFrame) -> Table:
    """Per gold, on all the test pages and then on those with comments: each extractor's token F1
    and the arbiter's and Readability's paired difference to the fast stack."""
    runs = latest_runs(runs[runs["dataset"].isin(list(GOLDS))], ["extractor", "dataset"])
    found = {(r["extractor"], r["dataset"]): r for _, r in runs.iterrows()}
    if any((e, d) not in found for e in EXTRACTORS for d in GOLDS):
        raise MissingRuns(f"{', '.join(EXTRACTORS)} on {' and '.join(GOLDS)} (experiment=table_comments)")
    pages = {key: run_pages(found[key]) for key in ((e, d) for e in EXTRACTORS for d in GOLDS)}
    commented = commented_pages(*(pages[(BASE, d)] for d in GOLDS))
    figure = figure_key(METRIC)
    by_gold = {d: align([pages[(e, d)] for e in EXTRACTORS], list(EXTRACTORS)) for d in GOLDS}
    rows = []
    for subset in ("all", "with comments"):
        for dataset, gold in GOLDS.items():
            aligned = by_gold[dataset]
            if subset != "all":
                keep = aligned[0]["page_id"].astype(str).isin(commented).to_numpy()
                aligned = [frame[keep].reset_index(drop=True) for frame in aligned]
            frames = dict(zip(EXTRACTORS, aligned, strict=True))
            row = {"gold": gold, "pages": f"{subset} ({len(aligned[0])})"}
            row.update({e: f"{point_value(figure, frames[e]):.3f}" for e in EXTRACTORS})
            for e in COMPARED:
                row[f"{e} − {BASE}"] = difference_cell(compare_pair(frames[e], frames[BASE], [METRIC])[0])
            rows.append(row)
    frame = pd.DataFrame(rows)
    trained = str(found[("arbiter", "dragnet")].get("trained_on") or "")
    note = (
        f"Dragnet's test pages scored against its gold without the comments (dataset=dragnet, the headline's "
        f"convention) and with them (dataset=dragnet_comments); pages with comments: those whose gold gains tokens "
        f"with them. The same extractions under both golds: the arbiter and stack_fast trained on {trained} "
        "(the mixture reads Dragnet's training pages without comments). Token F1; differences paired, with the "
        "page-bootstrap 95 % interval and the approximate-randomization p-value. DANIEL's gold leaves comments out "
        "as Dragnet's does, CleanEval's keeps them."
    )
    return Table("table_comments", "Whether comments are content: one dataset under two golds", frame, note)
