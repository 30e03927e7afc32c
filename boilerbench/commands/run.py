"""``boilerbench run OVERRIDES...`` (and ``python run.py OVERRIDES...`` in a checkout): one
(extractor, dataset) job, or a sweep with ``-m``; see README.md.

    boilerbench run extractor=bte dataset=cleaneval
    boilerbench run -m extractor=bte,all_text dataset=cleaneval,l3s_gn1

Hydra finds the configs as the package's data (``pkg://boilerbench.conf``), so the same command
composes in a checkout and from an installed wheel. Hydra names the job after this module
(``run``): its log is ``run.log`` in the run's folder.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from boilerbench.conf import option_message
from boilerbench.configs import members_override
from boilerbench.errors import BoilerbenchError
from boilerbench.experiments import run
from boilerbench.experiments.gate import gate_message
from boilerbench.experiments.results import summary_value

#: Where Hydra finds ``config.yaml`` and its groups: the installed package, not a source folder.
CONFIG_PATH = "pkg://boilerbench.conf"


@hydra.main(version_base="1.3", config_path=CONFIG_PATH, config_name="config")
def app(cfg: DictConfig) -> float | None:
    """Compose, run, and return the ``optimize`` figure (what a Hydra sweeper optimises).

    Exit status 2 on a user error (a missing dataset, a bad config value); 1 when more than
    ``max_error_rate`` of the pages failed (in a multirun, at the end of the sweep).
    """
    try:
        summary = run(cfg, HydraConfig.get().runtime.output_dir)
        objective = summary_value(summary, str(cfg.optimize))
    except BoilerbenchError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    message = gate_message(summary)
    if message:
        print(message, file=sys.stderr)
        if HydraConfig.get().mode == RunMode.RUN:
            sys.exit(1)
    return objective


def option_error(overrides: Sequence[str]) -> str | None:
    """The one-line error for the first override that names a renamed or unknown option of a
    config group (``extractor=html_to_text``, ``dataset=nope``, also in a sweep's list or
    ``choice(...)``), else None."""
    for override in overrides:
        match = re.match(r"^[+~]*([\w@.]+)=(.*)$", override)
        if not match:
            continue
        group = match.group(1).split("@")[0]
        values = re.sub(r"\w+\(", "(", match.group(2))  # sweep functions: choice(a,b), glob(...)
        for name in re.split(r"[,()\[\]\s]+", values):
            message = option_message(group, name) if re.fullmatch(r"[\w.-]+", name) else None
            if message:
                return message
    return None


def start(argv: Sequence[str]) -> None:
    """Check the overrides for renamed or unknown options and the older form of an ensemble's
    members (one line on stderr, exit status 2), then hand them to Hydra, which reads them from
    ``sys.argv``."""
    message = option_error(argv) or members_override(argv)
    if message:
        print(f"error: {message}", file=sys.stderr)
        sys.exit(2)
    sys.argv = [sys.argv[0], *argv]
    app()


def main(argv: Sequence[str]) -> int:
    """``boilerbench run OVERRIDES...``."""
    start(argv)
    return 0
