"""One-off investigations behind a design choice (which language identifier, which trees, what
each stack member is worth, ...): run from the project root as ``python -m studies.NAME``; their
figures are quoted where the choice is made (the README, the module that made it)."""
