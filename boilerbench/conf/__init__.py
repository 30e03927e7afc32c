"""The Hydra configs, a package so that Hydra finds them as ``pkg://boilerbench.conf`` in an installed wheel."""
