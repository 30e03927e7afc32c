"""Leave one language out: how a headline stack does on a language that none of its training pages
is in, the case of every page whose language is not in ``../shared``.

Issue 29's figures test the stacks on languages their mixture trains on (DANIEL's sites are split,
its languages are not). For each language ``L`` this fits the stack (``+headline=NAME``, its
training mixture and weighting) on the mixture without a page of ``L`` (DANIEL's and
magic-html-bench's pages of ``L`` left out, and any other dataset's), and extracts every DANIEL page
of ``L``, all of them being unseen sites in an unseen language, beside the references that learn
nothing (readability, trafilatura, the members' majority vote). On DANIEL's test pages of ``L``
it also extracts with the stack fitted on the whole mixture (``L`` seen), so the cost of not having
seen the language is paired on the same pages. Mean token F1, with paired page-bootstrap 95 %
intervals of the differences.

    BOILERBENCH_DATA=../shared/datasets python -m studies.unseen_language --headline stack_fast \\
        --languages zh,el,pl,ru [--seed 0] [--override KEY=VALUE] [--cache DIR]
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from hydra import compose, initialize_config_dir
from hydra.utils import instantiate

from benchmarks.common import run_main
from boilerbench.cache import set_cache_dir
from boilerbench.configs import CONF_DIR, make_extractor
from boilerbench.datasets.base import Split
from boilerbench.datasets.mixture import mixture
from boilerbench.datasets.page import Page
from boilerbench.evaluation.token import token_prf
from boilerbench.experiments.protocols import train_on_config
from boilerbench.experiments.runner import build
from boilerbench.experiments.seed import seed_everything
from studies.stack_validation import difference

REFERENCES = ("readability", "trafilatura", "majority_vote")


def without_language(split: Split, language: str | None) -> Split:
    """``split`` without its pages in ``language`` (all of them for None)."""

    def kept(pages: list[Page]) -> list[Page]:
        return [p for p in pages if language is None or p.language != language]

    return Split(split.name, kept(split.train), kept(split.validation), kept(split.test))


def fitted(cfg, sources: dict[str, Split], seed: int):
    """The headline's extractor fitted on the mixture of ``sources`` as its config weighs them."""
    train = mixture(sources, str(cfg.train_weights), seed=seed, shares=Counter(str(e) for e in cfg.train_on))
    extractor = instantiate(cfg.extractor)
    seed_everything(seed)
    extractor.fit(train.train, train.validation)  # the mixture leaves out pages that did not load
    return extractor


def headline_config(headline: str, seed: int, overrides: list[str]):
    """The config of ``+headline=NAME`` with ``seed`` as both the mixture's draw and the stack's own
    (the trees' bagging and early-stopping split), as ``seed=S`` is in the experiments that refit
    the headline with two seeds (``extractor.seed: ${seed}``), then ``overrides``."""
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        seeds = [f"seed={seed}", f"extractor.seed={seed}"]
        return compose("config", overrides=[f"+headline={headline}", "paths.root_dir=.", *seeds, *overrides])


def scores(extractor, pages: list[Page]) -> list[float]:
    """Token F1 of ``extractor`` on each page."""
    return [token_prf(extractor.extract(p).text, p.gold_text, p.tokenizer).f1 for p in pages]


def mean(values: list[float]) -> str:
    return f"{sum(values) / len(values):.4f}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--headline", default="stack_fast", help="conf/headline/NAME.yaml")
    parser.add_argument("--languages", default="zh,el,pl,ru", help="ISO 639-1 codes, comma-separated")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--override", action="append", default=[], help="a further config override (repeatable)")
    parser.add_argument("--cache", default=str(Path(__file__).resolve().parents[1] / ".cache" / "boilerbench"))
    args = parser.parse_args(argv)
    set_cache_dir(args.cache)
    cfg = headline_config(args.headline, args.seed, args.override)
    sources = {str(e): build(train_on_config(str(e), cfg)).load() for e in dict.fromkeys(cfg.train_on)}
    daniel = sources["daniel"]
    references = {name: make_extractor(name) for name in REFERENCES}
    for reference in references.values():
        reference.fit([], [])
    seen = fitted(cfg, {name: without_language(split, None) for name, split in sources.items()}, args.seed)
    print(
        f"{args.headline} {' '.join(args.override)}, seed {args.seed}: fitted on {cfg.train_on} ({cfg.train_weights})"
    )
    print(
        "| language | pages | unseen | " + " | ".join(REFERENCES) + " | unseen − readability | "
        "test pages | seen | unseen | unseen − seen |"
    )
    print("|---" * (8 + len(REFERENCES)) + "|")
    for language in args.languages.split(","):
        unseen = fitted(cfg, {name: without_language(split, language) for name, split in sources.items()}, args.seed)
        pages = [p for p in (*daniel.train, *daniel.validation, *daniel.test) if p.language == language]
        pages = [p for p in pages if not p.load_error]
        test = {id(p) for p in daniel.test}
        own = scores(unseen, pages)
        cells = [mean(own)]
        refs = {name: scores(r, pages) for name, r in references.items()}
        cells += [mean(v) for v in refs.values()]
        cells.append(difference(own, refs["readability"]))
        on_test = [i for i, p in enumerate(pages) if id(p) in test]
        seen_scores = scores(seen, [pages[i] for i in on_test])
        unseen_test = [own[i] for i in on_test]
        cells += [str(len(on_test)), mean(seen_scores), mean(unseen_test), difference(unseen_test, seen_scores)]
        print(f"| daniel:{language} | {len(pages)} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    run_main(main)
