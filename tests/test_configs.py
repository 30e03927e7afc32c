"""Every Hydra config composes and its ``_target_``s instantiate (nothing is run): each file under
conf/extractor, conf/dataset, conf/transfer, conf/experiment and conf/hparams_search, and every
value an experiment or a search sweeps over (as lightning-hydra-template's test_configs does)."""

from __future__ import annotations

import json
import os
import re

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.errors import ConfigCompositionException
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from boilerbench.configs import CONF_DIR, extractor_config
from boilerbench.errors import ConfigError, MissingDependencyError

CONF = CONF_DIR


def _names(group: str) -> list[str]:
    return sorted(p.stem for p in (CONF / group).glob("*.yaml"))


@pytest.fixture(autouse=True, scope="module")
def _hydra():
    """One Hydra initialisation for the module's many compositions."""
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        yield


def _compose(*overrides: str, hydra_config: bool = False) -> DictConfig:
    return compose("config", overrides=[f"paths.root_dir={CONF.parent}", *overrides], return_hydra_config=hydra_config)


_instantiated: set[str] = set()


def _instantiate(node: DictConfig, what: str):
    """Instantiate ``node`` (once per distinct resolved node); a missing optional package skips the
    test outside CI (CI installs every extra, so there it fails)."""
    key = json.dumps(OmegaConf.to_container(node, resolve=True), sort_keys=True, default=str)
    if key in _instantiated:
        return None
    try:
        made = instantiate(node)
    except Exception as err:
        cause = err.__cause__ or err
        if isinstance(cause, MissingDependencyError) and not os.environ.get("CI"):
            pytest.skip(f"{what}: {cause}")
        raise
    _instantiated.add(key)
    return made


def _check_run_config(cfg: DictConfig, what: str) -> None:
    """The parts a run instantiates, instantiated; the resolved config is complete."""
    OmegaConf.to_container(cfg, resolve=True, throw_on_missing=False)
    _instantiate(cfg.extractor, what)
    _instantiate(cfg.dataset, what)
    if cfg.get("train_dataset") is not None:
        _instantiate(cfg.train_dataset, what)
    assert str(cfg.optimize).startswith("metrics.")


@pytest.mark.parametrize("name", _names("extractor"))
def test_extractor_config(name):
    cfg = _compose(f"extractor={name}")
    extractor = instantiate(cfg.extractor)
    assert callable(extractor.fit) and callable(extractor.extract)


@pytest.mark.parametrize("name", _names("dataset"))
def test_dataset_config(name, tmp_path):
    extra = [f"dataset.root={tmp_path}"] if name == "plaintext" else []
    cfg = _compose(f"dataset={name}", *extra)
    dataset = instantiate(cfg.dataset)
    assert dataset.split in dataset.splits


@pytest.mark.parametrize("name", _names("transfer"))
def test_transfer_config(name):
    _check_run_config(_compose(f"+transfer={name}"), name)


def _sweep_values(cfg: DictConfig) -> list[list[str]]:
    """One job's overrides per value an experiment or search sweeps over: that value, with every
    other swept key at its first value, as the sweep combines them (a value may need another key's:
    ``train_source=mixture`` overrides the choice that ``+headline=stack_fast`` brings). Choice
    lists only (Optuna's ``interval(...)`` ranges are checked by composing the search itself); a
    list value (``[a,b]``) is one value, as Hydra's sweeper reads it."""
    choices = {}
    for key, values in (cfg.hydra.sweeper.get("params") or {}).items():
        values = str(values)
        if values.startswith(("interval(", "range(", "tag(", "int(", "float(")):
            continue
        if values.startswith("choice(") and values.endswith(")"):
            values = values[len("choice(") : -1]
        choices[key] = [value.strip() for value in re.split(r",(?![^\[]*\])", values)]
    return [
        [f"{k}={value if k == key else options[0]}" for k, options in choices.items()]
        for key, values in choices.items()
        for value in values
    ]


@pytest.mark.parametrize("name", _names("experiment"))
def test_experiment_config(name):
    cfg = _compose(f"experiment={name}", hydra_config=True)
    assert name.startswith(cfg.report) and str(cfg.hydra.mode) == "RunMode.MULTIRUN"
    for overrides in _sweep_values(cfg):
        _check_run_config(_compose(f"experiment={name}", *overrides), f"{name} with {overrides}")


@pytest.mark.parametrize("name", _names("hparams_search"))
def test_hparams_search_config(name):
    cfg = _compose(f"hparams_search={name}", hydra_config=True)
    assert cfg.evaluate_on == "validation", "a search must never score test pages"
    assert "optimize" in OmegaConf.to_container(cfg) and cfg.hydra.sweeper.direction in ("maximize", "minimize")
    _instantiate(OmegaConf.create({"_target_": "hydra.utils.get_class", "path": cfg.hydra.sweeper._target_}), name)
    _check_run_config(_compose(f"hparams_search={name}"), name)
    for overrides in _sweep_values(cfg):
        _check_run_config(_compose(f"hparams_search={name}", *overrides), f"{name} with {overrides}")


def test_extractor_overrides_set_append_and_force_under_the_extractor():
    # + appends a key the config lacks; ++ sets one whether or not the config has it
    config = extractor_config("bte", ["+extra=1", "++newer=2"])
    assert (config["extra"], config["newer"]) == (1, 2)
    assert extractor_config("stack", ["++seed=7"])["seed"] == 7
    # without a plus, a key the config lacks is refused, as Hydra refuses it
    with pytest.raises(ConfigCompositionException, match="extra"):
        extractor_config("bte", ["extra=1"])
    # the older members-by-name form is refused with its one-line error in every form
    with pytest.raises(ConfigError, match="members"):
        extractor_config("majority_vote", ["++members=[bte,cetd]"])
