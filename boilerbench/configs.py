"""Extractors from their config names: compose ``conf/extractor/<name>.yaml`` as the command line
does (defaults lists and overrides applied) and instantiate it.

The runner, the tests, the benchmarks and ``boilerbench extract`` build extractors this way. It
lives outside :mod:`boilerbench.extractors`, which never reads ``conf/``: an ensemble's or a
stack's members are nested configs in its own (``conf/extractor/members/<name>.yaml`` puts
``conf/extractor/<name>.yaml`` under ``members.<name>``), instantiated by Hydra with it, so a
member behaves exactly as the same extractor run alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hydra.errors import InstantiationException
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from boilerbench.conf import CONF_DIR
from boilerbench.errors import BoilerbenchError, ConfigError, check_choice
from boilerbench.extractors.members import MEMBERS_FORM


def extractor_names() -> list[str]:
    """The names of every extractor config (``conf/extractor/*.yaml``)."""
    return sorted(p.stem for p in (CONF_DIR / "extractor").glob("*.yaml"))


def build(node: DictConfig | dict):
    """``hydra.utils.instantiate``, re-raising a user-facing error (a bad option, a missing optional
    package) as itself rather than wrapped in Hydra's ``InstantiationException``."""
    try:
        return instantiate(node)
    except InstantiationException as err:
        if isinstance(err.__cause__, BoilerbenchError):
            raise err.__cause__ from None
        raise


def extractor_config(name: str, overrides: Sequence[str] = ()) -> dict[str, Any]:
    """The resolved config of extractor ``name`` with ``overrides`` (``"k=v"`` on its keys, or
    ``"extractor/members=[a,b]"``: the members). Works inside a Hydra run (the app's config search
    path) and outside one."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    check_choice("extractor", name, extractor_names())
    mapped = [o if o.startswith("extractor/") else _under_extractor(o) for o in overrides]
    message = members_override([o.lstrip("+") for o in mapped])
    if message:
        raise ConfigError(message)
    arguments = [f"extractor={name}", *mapped]
    if GlobalHydra.instance().is_initialized():
        cfg = compose("config", overrides=arguments)
    else:
        with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
            cfg = compose("config", overrides=arguments)
    config = OmegaConf.to_container(cfg.extractor, resolve=True)
    assert isinstance(config, dict)
    return {str(k): v for k, v in config.items()}


def _under_extractor(override: str) -> str:
    """``override`` of the extractor's config as a global one: ``k=v`` as ``extractor.k=v``, and
    Hydra's appending forms ``+k=v`` and ``++k=v`` as ``+extractor.k=v`` and ``++extractor.k=v``."""
    key = override.lstrip("+")
    return f"{override[: len(override) - len(key)]}extractor.{key}"


def members_override(overrides: Sequence[str]) -> str | None:
    """The one-line error for the older override of an ensemble's members by name
    (``extractor.members=[a,b]``, which Hydra cannot merge into nested member configs), naming
    the new form; None when no override is one."""
    for override in overrides:
        if override.startswith("extractor.members="):
            return f"{override}: {MEMBERS_FORM}"
    return None


def make_extractor(name: str, overrides: Sequence[str] = ()):
    """The extractor of ``conf/extractor/<name>.yaml`` with ``overrides``, instantiated."""
    return build(extractor_config(name, overrides))
