"""Fitted stacks compared on the validation pages of their training mixture: what a choice between
two settings of the headline stack (``+headline=stack``) may read, since the test pages may not be.

Each ``NAME=DIR`` is a stack that ``python run.py +headline=stack ...`` fitted (its model cache
folder, ``models/stack/<key>``; the stack's settings and members are read from the folder). Every
validation page of the mixture's datasets (``conf/train_source/multilingual``: CleanEval, Dragnet,
WCXB, DANIEL, magic-html-bench) is extracted with each stack and scored as the runner scores it:
mean token F1, over all of them, per dataset, per language (DANIEL, magic-html-bench) and per page
type (WCXB, magic-html-bench), with each stack's difference from the first and its paired page
bootstrap 95 % interval. The fits stopped early on these pages and chose their page types'
decodings on them, so the figures flatter every stack alike; they rank settings, they are not test
figures.

    BOILERBENCH_DATA=../shared/datasets python -m studies.stack_validation \\
        base=models/stack/KEY1 type_features=models/stack/KEY2 [--cache DIR]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from hydra import compose, initialize_config_dir
from omegaconf import DictConfig

from benchmarks.common import run_main
from boilerbench.cache import set_cache_dir
from boilerbench.configs import CONF_DIR, make_extractor
from boilerbench.datasets.align import align_labels
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.evaluation.stats import paired_bootstrap
from boilerbench.evaluation.token import token_prf
from boilerbench.experiments.protocols import train_on_config
from boilerbench.experiments.runner import build
from boilerbench.extractors.base import Extraction, Extractor
from boilerbench.extractors.stack.model import STATE_FILE, Stack
from studies.seed_vote import vote_text


def load_stack(directory: Path):
    """The stack fitted into ``directory`` by a run (its members by name, with their configs' settings)."""
    if not (directory / STATE_FILE).is_file():
        raise ConfigError(f"{directory} holds no fitted stack ({STATE_FILE} is missing)")
    # a stack saved before a hyperparameter was added was fitted with its default, not the config's
    params = {**Stack._added_defaults(), **json.loads((directory / STATE_FILE).read_text(encoding="utf-8"))["params"]}
    # ++: set or add, so that a hyperparameter its config file does not name (one tried on a branch) loads
    overrides = [f"++{k}={json.dumps(v)}" for k, v in params.items() if k != "members"]
    overrides.append(f"extractor/members=[{','.join(params['members'])}]")
    return make_extractor("stack", overrides).load(directory)


def mixture_datasets(names: Sequence[str] | None = None) -> dict[str, DictConfig]:
    """The dataset configs of the headline's training mixture (its ``train_on``), by entry; or
    of the datasets ``names``, as the headline reads them."""
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=["+headline=stack", "paths.root_dir=."])
    return {str(entry): train_on_config(str(entry), cfg) for entry in (names or cfg.train_on)}


def groups_of(dataset: str, page) -> list[str]:
    """The rows a page counts in: its dataset, its language and its page type where given."""
    keys = [dataset]
    if dataset in ("daniel", "magic_html"):
        keys.append(f"{dataset}:{page.language}")
    if page.page_type and dataset in ("wcxb", "magic_html"):
        keys.append(f"{dataset}:{page.page_type}")
    return keys


def difference(a: list[float], b: list[float]) -> str:
    """The mean of ``a - b`` (the same pages) and its paired page bootstrap 95 % interval."""
    x, y, n = np.asarray(a)[:, None], np.asarray(b)[:, None], len(a)
    low, high = paired_bootstrap(x, y, ["f1"], {"mean": lambda sums: sums["f1"] / n})["mean"]
    return f"{float((x - y).mean()):+.4f} [{low:+.4f}, {high:+.4f}]"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stacks", nargs="+", help="NAME=DIR: a fitted stack's model folder")
    parser.add_argument("--cache", default=str(Path(__file__).resolve().parents[1] / ".cache" / "boilerbench"))
    args = parser.parse_args(argv)
    set_cache_dir(args.cache)
    pairs = [s.split("=", 1) for s in args.stacks]
    if any(len(p) != 2 for p in pairs):
        raise ConfigError("give each stack as NAME=DIR")
    print_comparison(validation_scores({name: load_stack(Path(directory)) for name, directory in pairs}))
    return 0


def validation_scores(
    models: dict[str, Extractor], votes: Mapping[str, Sequence[str]] | None = None
) -> dict[str, dict[str, list[float]]]:
    """Each model's token F1 on every validation page of the mixture's datasets, on all of them
    and by row of :func:`groups_of` (row -> model -> one score per page); and each of ``votes``'s
    (name -> an odd number of the models), the blocks that most of its models keep
    (:func:`studies.seed_vote.vote_text`)."""
    scores: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for dataset, node in mixture_datasets().items():
        pages = [p for p in build(node).load().validation if not p.load_error]
        for page in pages:
            extractions = {name: model.extract(page) for name, model in models.items()}
            texts = {name: e.text for name, e in extractions.items()}
            for name, voters in (votes or {}).items():
                labels = [block_labels(page, extractions[v]) for v in voters]
                texts[name] = vote_text([texts[v] for v in voters], labels, page)
            for name, text in texts.items():
                f1 = token_prf(text, page.gold_text, page.tokenizer).f1
                for key in ("all", *groups_of(dataset, page)):
                    scores[key][name].append(f1)
            page.release()
    return scores


def block_labels(page: Page, extraction: Extraction) -> np.ndarray:
    """An extraction's labels of the page's blocks: its own, or its text aligned onto them."""
    if extraction.labels is not None and len(extraction.labels) == len(page.blocks):
        return np.asarray(extraction.labels, dtype=np.int8)
    return align_labels(page.blocks, extraction.text)


def print_comparison(scores: dict[str, dict[str, list[float]]]) -> None:
    """A Markdown table of :func:`validation_scores`: each row's pages, each model's mean and each
    model's paired difference from the first."""
    names = list(next(iter(scores.values()))) if scores else []
    first = names[0] if names else ""
    print("| rows | pages | " + " | ".join(names) + " | " + " | ".join(f"{n} − {first}" for n in names[1:]) + " |")
    print("|---" * (2 + 2 * len(names) - 1) + "|")
    for key, by_name in scores.items():
        cells = [f"{np.mean(v):.4f}" for v in by_name.values()]
        for name in names[1:]:
            cells.append(difference(by_name[name], by_name[first]))
        print(f"| {key} | {len(by_name[first])} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    run_main(main)
