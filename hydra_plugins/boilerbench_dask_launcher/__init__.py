"""A Hydra launcher that runs a multirun's jobs on a Dask distributed cluster: ``hydra/launcher=dask``."""
