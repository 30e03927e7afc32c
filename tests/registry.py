"""Every extractor config in conf/extractor, instantiated (shared by the parametrised tests)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from hydra.utils import instantiate
from omegaconf import OmegaConf

CONF = Path(__file__).resolve().parents[1] / "conf"
EXTRACTOR_NAMES = sorted(p.stem for p in (CONF / "extractor").glob("*.yaml"))


def make_extractor(name: str):
    """Instantiate ``conf/extractor/<name>.yaml``; skip when an optional package is missing."""
    cfg = OmegaConf.load(CONF / "extractor" / f"{name}.yaml")
    module = str(cfg["_target_"]).rsplit(".", 1)[0]
    try:
        importlib.import_module(module)
    except ImportError as err:
        pytest.skip(f"{name}: optional dependency missing ({err})")
    return instantiate(cfg)
