"""The ``dask`` option of Hydra's ``hydra/launcher`` group.

No ``from __future__ import annotations`` here: Hydra's plugin scan runs this module without
registering it in ``sys.modules``, where a dataclass cannot resolve string annotations."""

from dataclasses import dataclass
from typing import Optional

from hydra.core.config_store import ConfigStore


@dataclass
class DaskLauncherConf:
    """``hydra/launcher=dask``: the scheduler's address (null: a local cluster of ``n_workers`` processes)."""

    _target_: str = "hydra_plugins.boilerbench_dask_launcher.dask_launcher.DaskLauncher"
    address: Optional[str] = None  # noqa: UP045 (evaluated at run time, on Python 3.10 too)
    n_workers: int = 2


ConfigStore.instance().store(group="hydra/launcher", name="dask", node=DaskLauncherConf, provider="boilerbench")
