"""The quality gate on the real datasets: every entry of ``tests/baselines.json`` is run and each
pinned figure must stay within its tolerance (see ``tests/baseline_gate.py``, which regenerates
the file: ``python tests/baseline_gate.py --update``)."""

import pytest
from baseline_gate import deviations, load_baselines, measure

pytestmark = [pytest.mark.data, pytest.mark.slow]

ENTRIES = load_baselines()


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory):
    """One artefact cache for all entries (decoded encodings and gold labels are computed once)."""
    return tmp_path_factory.mktemp("cache")


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_figures_stay_within_their_tolerance(name, data_root, shared_cache, tmp_path):
    summary = measure(ENTRIES[name]["overrides"], tmp_path, shared_cache)
    problems = deviations(ENTRIES[name], summary)
    assert not problems, (
        f"{name} left its pinned baseline:\n  " + "\n  ".join(problems) + "\nIf the change is intended, run "
        f"`python tests/baseline_gate.py --update --only {name}` and explain the diff of tests/baselines.json."
    )
