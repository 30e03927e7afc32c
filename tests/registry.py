"""Every extractor config in conf/extractor, instantiated (shared by the parametrised tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from boilerbench.configs import CONF_DIR
from boilerbench.errors import MissingDependencyError
from boilerbench.experiments import runner

PROJECT = Path(__file__).resolve().parents[1]
CONF = CONF_DIR
EXTRACTOR_NAMES = sorted(p.stem for p in (CONF / "extractor").glob("*.yaml"))


#: Short training for tests whose outcome does not depend on how well a model learned.
QUICK_FIT = {
    "boilernet": ("epochs=5",),
    "fiasco": ("visual=false",),  # the hostile-page matrix runs without a browser (test_fiasco renders)
    "tagpath_lstm": ("epochs=3", "embedding_epochs=3"),
    "web2text": ("max_steps=100", "eval_every=50"),
    "web2text_unary": ("max_steps=100", "eval_every=50"),
    "stack": ("n_estimators=20",),
    "cascade": ("fast.n_estimators=20", "accurate.n_estimators=20"),
    "arbiter": ("base.n_estimators=20",),
    "arbiter_stack": ("base.n_estimators=20",),
}


def make_extractor(name: str, quick: bool = False):
    """Instantiate ``conf/extractor/<name>.yaml`` (with :data:`QUICK_FIT` settings when
    ``quick``); skip when an optional package is missing."""
    try:
        return runner.make_extractor(name, QUICK_FIT.get(name, ()) if quick else ())
    except MissingDependencyError as err:
        pytest.skip(f"{name}: {err}")
