"""Run one (extractor, dataset) job, or a sweep with -m. See README.md.

python run.py extractor=bte dataset=cleaneval
python run.py -m extractor=bte,all_text dataset=cleaneval,l3s_gn1
"""

from __future__ import annotations

import sys

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from boilerbench.errors import BoilerbenchError
from boilerbench.experiments import run


@hydra.main(version_base="1.3", config_path="conf", config_name="config")
def main(cfg: DictConfig) -> float | None:
    """Compose, run, and return the block F1 (the value a Hydra sweeper optimises)."""
    try:
        summary = run(cfg, HydraConfig.get().runtime.output_dir)
    except BoilerbenchError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    return summary["metrics"]["block"]["f1"]


if __name__ == "__main__":
    main()
