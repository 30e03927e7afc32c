"""``table_cleaneval2007``: the CleanEval 2007 systems as the competition scored them.

Per system: the published 2007 figures (text and markup, text only, their average: the ranking
score), ours on the same protocol (trained on the development set, tested on the 676 final-set
pages with gold): text only, text and markup, their average, the share of pages the extractor
gave its own structure (the others are scored with the text-only structure, a ``<p>`` per
line), and the two rankings of the seven competition entries side by side.
"""

from __future__ import annotations

import pandas as pd

from boilerbench.reports.collect import run_pages
from boilerbench.reports.figures import MissingRuns
from boilerbench.reports.published import CLEANEVAL_2007, SYSTEM_NAMES
from boilerbench.reports.tables import Table, fmt

#: the competition's entries, in the order of their published score
ENTRIES = tuple(sorted((k for k, v in CLEANEVAL_2007.items() if "to" in v), key=lambda k: -CLEANEVAL_2007[k]["ave"]))


def structured_share(run: pd.Series) -> float:
    """Share of a run's pages with a text-and-markup score (gold with markup) that were scored
    with the extractor's own structure."""
    frame = run_pages(run)
    if "structured" not in frame.columns:
        return 0.0
    flags = frame["structured"].astype(str).str.lower()
    scored = flags[flags != ""]
    return float(scored.isin(("true", "1")).mean()) if len(scored) else 0.0


def variant(run: pd.Series) -> str:
    """The system a run is: its extractor, or for WCC's other systems ``wcc_<method>`` and for
    FIASCO without its visual features ``fiasco_text``."""
    name = str(run["extractor"])
    method = run.get("param.method")
    if name == "wcc" and isinstance(method, str) and method != "heuristic":
        return f"wcc_{method}"
    if name == "fiasco" and str(run.get("param.visual")).lower() in ("false", "0"):
        return "fiasco_text"
    return name


def ranks(values: dict[str, float]) -> dict[str, int]:
    """1 for the highest value (ties share the better rank)."""
    ordered = sorted(values.values(), reverse=True)
    return {k: ordered.index(v) + 1 for k, v in values.items()}


def cleaneval2007_table(runs: pd.DataFrame) -> Table:
    runs = runs[(runs["protocol"] == "in_domain") & (runs["dataset"] == "cleaneval")]
    if runs.empty or "cleaneval.mean_2007" not in runs.columns:
        raise MissingRuns("CleanEval 2007 system runs on cleaneval (split cleaneval)")
    runs = runs.assign(system=[variant(r) for _, r in runs.iterrows()])
    runs = runs.sort_values("finished_at").drop_duplicates(subset=["system"], keep="last")
    ours = {r["system"]: float(r["cleaneval.mean_2007"]) for _, r in runs.iterrows()}
    published_rank = ranks({k: CLEANEVAL_2007[k]["ave"] for k in ENTRIES if k in ours})
    our_rank = ranks({k: ours[k] for k in ENTRIES if k in ours})
    rows = []
    for _, run in runs.iterrows():
        name = run["system"]
        pub = CLEANEVAL_2007.get(name, {})
        rows.append(
            {
                "system": SYSTEM_NAMES.get(name, name),
                "run": name,
                "TM (pub.)": fmt(pub.get("tm"), 1),
                "TO (pub.)": fmt(pub.get("to"), 1),
                "2007 score (pub.)": fmt(pub.get("ave"), 1),
                "TO": fmt(run.get("cleaneval.mean"), 2),
                "TM": fmt(run.get("cleaneval.markup_mean"), 2),
                "2007 score": fmt(run.get("cleaneval.mean_2007"), 2),
                "own structure": f"{structured_share(run):.0%}",
                "block F1": fmt(run.get("block.f1"), 3),
                "fit s": fmt(run.get("fit_s"), 1),
                "ms/page": fmt(run.get("ms_per_page"), 1),
                "rank (pub.)": str(published_rank.get(name, "–")),
                "rank (ours)": str(our_rank.get(name, "–")),
                "_order": -ours[name],
            }
        )
    frame = pd.DataFrame(rows).sort_values("_order").drop(columns="_order").reset_index(drop=True)
    note = (
        "TO: CleanEval text-only score, TM: text and markup, 2007 score: their average (the competition's "
        "ranking score), means over the 676 test pages of the cleaneval split (trained on the 56 + 5 "
        "development pages). TM is defined in boilerbench/evaluation/cleaneval_score.py (the organisers' "
        "scorer is not available). Published: LREC 2008 Table 5 (TM / TO / average), matched to the systems "
        "by the average papers/002 gives each; WCC's other systems have one figure each from the team's "
        "report on their development data. Ranks: the seven competition entries only. fit s: training time "
        "(WCC genetic: the search); ms/page: extraction, FIASCO's including the page's first rendering "
        "unless its layout was cached."
    )
    return Table(
        "table_cleaneval2007", "CleanEval 2007: the competition's systems, scored as they were scored", frame, note
    )
