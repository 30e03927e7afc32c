"""The literature's figures the tables print next to ours (sources in ``../shared/ALGORITHMS.md``).

Block metrics on CleanEval are papers/003's table (Web2Text's paper evaluates a 55-56/5/676 and
a 531/58/148 split; the table does not say which it copies, so the figures sit beside both of
our splits). ROUGE-LSum F1 is Bevendorff et al. (SIGIR 2023), mean over pages, on their copy of
each dataset.
"""

from __future__ import annotations

#: (extractor, dataset) -> {metric column: published value}.
PUBLISHED: dict[tuple[str, str], dict[str, float]] = {
    # Xi et al. 2016 (papers/004), fig. 7: about 80 % of their 144 short Chinese news pages right
    # (SCEDD error at most 0.2), by their own measure; the pages are short-content pages only
    ("scedd", "chinese"): {"lcs_error.wrong_rate": 0.20},
    ("bte", "cleaneval"): {"block.accuracy": 0.75, "block.precision": 0.76, "block.recall": 0.84, "block.f1": 0.80},
    ("crf", "cleaneval"): {
        "block.accuracy": 0.82,
        "block.precision": 0.88,
        "block.recall": 0.81,
        "block.f1": 0.84,
        "cleaneval.mean": 74.7,
    },
    ("wcc", "cleaneval"): {"cleaneval.mean": 74.2},
    ("kimatu", "cleaneval"): {"cleaneval.mean": 74.3},
    ("htmlcleaner", "cleaneval"): {"cleaneval.mean": 74.0},
    ("lm_embedding", "cleaneval"): {
        "block.accuracy": 0.84,
        "block.precision": 0.86,
        "block.recall": 0.83,
        "block.f1": 0.84,
    },
    ("web2text", "cleaneval"): {
        "block.accuracy": 0.86,
        "block.precision": 0.87,
        "block.recall": 0.90,
        "block.f1": 0.88,
        "rouge_lsum.f1": 0.912,
    },
    ("boilernet", "cleaneval"): {
        "block.precision": 0.87,
        "block.recall": 0.86,
        "block.f1": 0.87,
        "rouge_lsum.f1": 0.868,
    },
    ("trafilatura", "cleaneval"): {"rouge_lsum.f1": 0.857},
    ("readability", "cleaneval"): {"rouge_lsum.f1": 0.869},
    ("boilerpipe", "cleaneval"): {"rouge_lsum.f1": 0.807},
    ("justext", "cleaneval"): {"rouge_lsum.f1": 0.881},
    ("boilerpipe", "l3s_gn1"): {"rouge_lsum.f1": 0.951},
    ("readability", "l3s_gn1"): {"rouge_lsum.f1": 0.918},
    ("trafilatura", "l3s_gn1"): {"rouge_lsum.f1": 0.880},
    ("web2text", "l3s_gn1"): {"rouge_lsum.f1": 0.871},
    ("boilernet", "l3s_gn1"): {"rouge_lsum.f1": 0.794},
}

SOURCES = (
    "Published block metrics: papers/003's table (CleanEval; the LM-embedding row is on a random "
    "64/33 split of all blocks, not of pages). Published CleanEval scores: the 2007 competition "
    "(papers/002), whose score also weighs markup, on the competition's test pages. Published "
    "ROUGE-LSum F1: Bevendorff et al., SIGIR 2023 (their copy of each dataset)."
)


def published(extractor: str, dataset: str, metric: str) -> float | None:
    """The published value of ``metric`` for ``extractor`` on ``dataset``, if there is one.

    Variants share their base system's figures only where they are that system
    (``web2text_unary`` has none)."""
    return PUBLISHED.get((extractor, dataset), {}).get(metric)


#: The CleanEval 2007 competition's scores (LREC 2008, Baroni et al., Table 5: "Text and Markup",
#: "Text Only" and their average, the ranking score), by our extractor config. papers/002 gives
#: each system's average; the TM / TO pairs are the table's number triples, each matched to its
#: system by that average (every average is distinct). WCC's four other systems have one figure
#: each, from the team's own report (scored on their development data; the genetic search has
#: none).
CLEANEVAL_2007: dict[str, dict[str, float]] = {
    "crf": {"tm": 65.3, "to": 84.1, "ave": 74.7},
    "kimatu": {"tm": 65.3, "to": 83.4, "ave": 74.3},
    "wcc": {"tm": 65.5, "to": 83.0, "ave": 74.2},
    "htmlcleaner": {"tm": 65.6, "to": 82.5, "ave": 74.0},
    "genieknows": {"tm": 63.9, "to": 83.4, "ave": 73.6},
    "stupidos": {"tm": 60.3, "to": 82.9, "ave": 71.6},
    "fiasco": {"tm": 53.5, "to": 73.5, "ave": 63.5},
    "wcc_baseline": {"ave": 62.2},
    "wcc_tree": {"ave": 52.4},
    "wcc_lm": {"ave": 60.6},
}

#: The 2007 systems' names as the competition knew them.
SYSTEM_NAMES = {
    "crf": "Victor (CRF)",
    "kimatu": "Kimatu",
    "wcc": "WCC heuristic (entry)",
    "wcc_baseline": "WCC baseline",
    "wcc_tree": "WCC decision tree",
    "wcc_lm": "WCC language model",
    "wcc_genetic": "WCC genetic",
    "htmlcleaner": "HTMLCleaner",
    "genieknows": "GenieKnows",
    "stupidos": "StupidOS",
    "fiasco": "FIASCO",
    "fiasco_text": "FIASCO without visual features",
}
