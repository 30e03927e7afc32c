"""What each member of the stack is worth: the first stage of the headline stack refitted without
one member at a time (and with Resiliparse alone, with or without the CRF features, with
trafilatura and Resiliparse, and with no member: ``features=blocks``), on
the same training rows, scored on the training mixture's validation pages.

The rows of the headline's training mixture (``conf/train_source/multilingual``: CleanEval,
Dragnet, WCXB, DANIEL and magic-html-bench, balanced by dataset, language and page type) are built
once (member votes and block features from the disk cache, as ``python run.py +headline=stack``
made them); each
variant drops the columns of the members it leaves out and recomputes the share of members
keeping a block from the others' votes, then fits the first stage's trees (LightGBM, early
stopping on the validation pages) and decodes at the threshold. The score is the mean over
validation pages of the word F1 of the kept blocks against the gold blocks (what the stack's
page-type gate optimises; close to, not equal to, the runner's token F1), with its paired
difference to the five-member model and a page-bootstrap 95 % interval. The second stage and
the page-type decoding are left out: seven full fits would take an hour on a shared machine.

    BOILERBENCH_DATA=../shared/datasets python -m studies.stack_members [--extra cetd,kimatu,bte]
        [--sets resiliparse+readability:nocrf,resiliparse+boilerpipe+justext:nocrf]

``--extra``: cheap heuristics that are no members, each tried as a second member of the fast
configuration's set (Resiliparse alone, no CRF features) against that set alone. ``--sets``:
subsets of the five members (``:nocrf``: without the CRF features) against all five.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from benchmarks.common import run_main
from boilerbench.cache import set_cache_dir
from boilerbench.configs import CONF_DIR
from boilerbench.errors import ConfigError
from boilerbench.experiments.protocols import mixture_split
from boilerbench.experiments.runner import build
from boilerbench.extractors.stack import Stack
from boilerbench.extractors.stack.features import VOTE_FEATURES, crf_vocabulary, feature_names
from boilerbench.extractors.stack.model import split_pages
from boilerbench.extractors.stack.page_types import word_f1

MEMBERS = ("trafilatura", "readability", "justext", "boilerpipe", "resiliparse")


def variants(extra: tuple[str, ...] = (), sets: tuple[str, ...] = ()) -> dict[str, tuple[tuple[str, ...], bool]]:
    """Each variant's members, and whether it keeps the CRF features, the first the base the
    others are compared with. With ``extra`` members (cheap heuristics that are no members
    today): the fast configuration's set (``conf/extractor/stack_fast.yaml``: Resiliparse alone,
    no CRF features), then each extra added to it. With ``sets`` (``a+b`` or ``a+b:nocrf``): the
    five members, then those sets of them (the cheaper sets that could make the most accurate
    configuration within a time budget)."""
    if sets:
        chosen = {"all five": (MEMBERS, True)}
        for spec in sets:
            names, _, flag = spec.partition(":")
            if set(names.split("+")) - set(MEMBERS) or flag not in ("", "nocrf"):
                raise ConfigError(f"--sets {spec!r}: members of {', '.join(MEMBERS)} joined by +, optionally :nocrf")
            kept = tuple(m for m in MEMBERS if m in names.split("+"))
            chosen[" + ".join(kept) + (", no CRF features" if flag == "nocrf" else "")] = (kept, flag != "nocrf")
        return chosen
    if extra:
        fast = {"resiliparse only, no CRF features": (("resiliparse",), False)}
        return fast | {f"resiliparse + {m}, no CRF features": (("resiliparse", m), False) for m in extra}
    out = {"all five": (MEMBERS, True)}
    out.update({f"without {m}": (tuple(x for x in MEMBERS if x != m), True) for m in MEMBERS})
    out["resiliparse only"] = (("resiliparse",), True)
    out["resiliparse only, no CRF features"] = (("resiliparse",), False)
    out["trafilatura + resiliparse"] = (("trafilatura", "resiliparse"), True)
    out["no member (features=blocks)"] = ((), True)
    return out


def columns(names: list[str], X: np.ndarray, kept: tuple[str, ...], crf: bool = True) -> np.ndarray:
    """The rows with only the ``kept`` members' vote columns, their keep share recomputed (and
    without the CRF features unless ``crf``)."""
    own = [j for j, n in enumerate(names) if not n.startswith("member") and (crf or not n.startswith("crf."))]
    mine = [j for j, n in enumerate(names) if any(n.startswith(f"member.{m}.") for m in kept)]
    votes = [names.index(f"member.{m}.{VOTE_FEATURES[0]}") for m in kept]
    share = X[:, votes].mean(axis=1, keepdims=True) if votes else np.zeros((len(X), 0))
    return np.hstack([X[:, own + mine], share])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache-dir", default=".cache/boilerbench")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--extra", default="", help="comma-separated extractors tried as a second cheap member")
    parser.add_argument("--sets", default="", help="comma-separated member sets (a+b, or a+b:nocrf) against all five")
    args = parser.parse_args(argv)
    extra = tuple(m for m in args.extra.split(",") if m)
    sets = tuple(s for s in args.sets.split(",") if s)
    tried = variants(extra, sets)
    members = MEMBERS + extra
    set_cache_dir(args.cache_dir)
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose(
            "config",
            overrides=[
                "+headline=stack",
                "dataset=wcxb",
                "paths.root_dir=.",
                f"extractor/members=[{','.join(members)}]",
            ],
        )
    split, _, _ = mixture_split(cfg, build(cfg.dataset).load(), [str(e) for e in cfg.train_on], str(cfg.train_weights))
    config = OmegaConf.to_container(cfg.extractor, resolve=True)
    assert isinstance(config, dict)
    stack: Stack = build({**config, "second_stage": False, "decoding": "threshold"})
    start = time.perf_counter()
    stack.vocabulary_ = crf_vocabulary(split.train)
    X, y, w, _ = stack._dataset(split.train)
    Xv, yv, wv, held = stack._dataset(split.validation)
    seconds = time.perf_counter() - start
    print(f"rows: {len(y)} training, {len(yv)} validation blocks ({len(held)} pages), built in {seconds:.0f} s")
    names = feature_names("all", members, stack.vocabulary_)
    rng = np.random.default_rng(0)
    draws = rng.integers(0, len(held), (args.resamples, len(held)))
    base = None
    first = next(iter(tried))
    for name, (kept, crf) in tried.items():
        trees = stack._fit_trees(columns(names, X, kept, crf), y, w, columns(names, Xv, kept, crf), yv, wv)
        p = stack._predict(trees, columns(names, Xv, kept, crf))
        pages = zip(split_pages(p, held), split_pages(yv, held), held, strict=True)
        f1 = np.array([word_f1((q >= 0.5).astype(np.int8), gold, layout.words) for q, gold, layout in pages])
        base = f1 if base is None else base
        diff = f1 - base
        low, high = np.percentile(diff[draws].mean(axis=1), [2.5, 97.5])
        print(
            f"  {name:<28} word F1 {f1.mean():.4f}   vs {first} {diff.mean():+.4f} [{low:+.4f}, {high:+.4f}]"
            f"   trees {stack._n_trees(trees)}"
        )
    return 0


if __name__ == "__main__":
    run_main(main)
