"""Run one (extractor, dataset) job, or a sweep with -m. See README.md.

python run.py extractor=bte dataset=cleaneval
python run.py -m extractor=bte,all_text dataset=cleaneval,l3s_gn1
"""

from __future__ import annotations

import sys

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from boilerbench.errors import BoilerbenchError
from boilerbench.experiments import run
from boilerbench.experiments.gate import gate_message
from boilerbench.experiments.results import summary_value


@hydra.main(version_base="1.3", config_path="boilerbench/conf", config_name="config")
def main(cfg: DictConfig) -> float | None:
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


if __name__ == "__main__":
    main()
