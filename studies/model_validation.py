"""Headline models compared on the validation pages of their training mixture: the choice between two
models (the arbiter over the fast stack or over the full one, a base with another member) that the
test pages may not make.

Each ``NAME="OVERRIDES"`` is a model as ``python run.py OVERRIDES`` fits it for the headline datasets
(``+headline=arbiter``, or ``+headline=arbiter extractor/members@extractor.base.members=[a,b]``): its
fit on the training mixture is loaded from the model cache under the runner's key, or fitted into it
(:func:`boilerbench.experiments.runner.fit_extractor`, in the folder of the extractor config that
the overrides choose, as under ``run.py``). Every validation page of the mixture's datasets is extracted by
each model and scored as ``studies.stack_validation`` scores stacks: mean token F1 per dataset, per
DANIEL and magic-html-bench language and per page type, and each model's paired difference from the
first. The fits stopped early on these pages and an arbiter's selector learnt from them, so the
figures flatter every model alike; they rank models, they are not test figures.

    BOILERBENCH_DATA=../shared/datasets python -m studies.model_validation \\
        arbiter="+headline=arbiter" arbiter_stack="+headline=arbiter_stack"

``--vote NAME=A,B,C`` adds the blocks that most of the models A, B and C keep (the same model fitted
with three seeds: ``studies.seed_vote``).
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from hydra import compose, initialize_config_dir
from hydra.core.hydra_config import HydraConfig
from omegaconf import open_dict

from benchmarks.common import run_main
from boilerbench.cache import set_cache_dir
from boilerbench.configs import CONF_DIR
from boilerbench.errors import ConfigError
from boilerbench.experiments.protocols import Fit, configured_protocol
from boilerbench.experiments.runner import build, fit_extractor
from boilerbench.experiments.seed import seed_everything
from boilerbench.extractors.base import Extractor, tags
from studies.stack_validation import print_comparison, validation_scores

PROJECT = Path(__file__).resolve().parents[1]
#: A test dataset outside the training mixture: the headline fit its runs share.
TESTED = "scrapinghub"


def planned_model(overrides: list[str], tested: str = "") -> tuple[Extractor, Fit]:
    """The model ``python run.py OVERRIDES`` fits, loaded from the model cache or fitted into it
    (seeded as the runner seeds a fit), with its fit of the run's plan: the one whose test pages
    hold a page whose id contains ``tested`` (a cross-validated run's fold), else the first."""
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=[*overrides, f"paths.root_dir={PROJECT}"], return_hydra_config=True)
    HydraConfig.instance().set_config(cfg)  # the model cache's folder: the extractor config chosen
    with open_dict(cfg):
        del cfg["hydra"]
    set_cache_dir(cfg.paths.get("cache_dir"))
    extractor = build(cfg.extractor)
    split = build(cfg.dataset).load()
    fits = configured_protocol(cfg).resolve(cfg, split, True).plan(cfg, split).fits
    fit = next((f for f in fits if tested and any(tested in str(p.id) for p in f.test)), fits[0])
    if tags(extractor).learns:
        seed_everything(int(cfg.seed))
        seconds, loaded = fit_extractor(extractor, cfg, fit.source, fit.training, **fit.identity)
        print(f"{' '.join(overrides)}: {'loaded' if loaded else f'fitted in {seconds:.0f} s'}", flush=True)
    return extractor, fit


def headline_model(overrides: list[str]) -> Extractor:
    """The model ``python run.py OVERRIDES dataset=scrapinghub`` fits (the headline fit every
    headline dataset's run shares)."""
    return planned_model([*overrides, f"dataset={TESTED}"])[0]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", help='NAME="OVERRIDES": a model as python run.py OVERRIDES fits it')
    parser.add_argument(
        "--vote",
        action="append",
        default=[],
        help="NAME=A,B,C: also the blocks that most of the models A, B and C keep (an odd number of them)",
    )
    args = parser.parse_args(argv)
    pairs = [m.split("=", 1) for m in args.models]
    if len(pairs) < 2 or any(len(p) != 2 or not p[1].strip() for p in pairs):
        raise ConfigError('give two models or more, each as NAME="OVERRIDES"')
    votes = {name: voters.split(",") for name, _, voters in (v.partition("=") for v in args.vote)}
    named = {name for name, _ in pairs}
    if any(len(v) < 3 or len(v) % 2 == 0 or not set(v) <= named for v in votes.values()):
        raise ConfigError("give each vote as NAME=A,B,C: an odd number of the models named, three or more")
    models = {name: headline_model(shlex.split(overrides)) for name, overrides in pairs}
    print_comparison(validation_scores(models, votes))
    return 0


if __name__ == "__main__":
    run_main(main)
