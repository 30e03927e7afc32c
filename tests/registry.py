"""Every extractor config in conf/extractor, instantiated (shared by the parametrised tests)."""

from __future__ import annotations

from pathlib import Path

import pytest
from omegaconf import OmegaConf

from boilerbench.errors import MissingDependencyError
from boilerbench.experiments.runner import build

PROJECT = Path(__file__).resolve().parents[1]
CONF = PROJECT / "conf"
EXTRACTOR_NAMES = sorted(p.stem for p in (CONF / "extractor").glob("*.yaml"))


def make_extractor(name: str):
    """Instantiate ``conf/extractor/<name>.yaml``; skip when an optional package is missing."""
    try:
        return build(OmegaConf.load(CONF / "extractor" / f"{name}.yaml"))
    except MissingDependencyError as err:
        pytest.skip(f"{name}: {err}")
