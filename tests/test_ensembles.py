"""Voting ensembles on a hand-made page with hand-computed votes (members replaced by fakes that
return fixed texts, which the aligner maps onto the blocks)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from conftest import PROJECT

from boilerbench.cache import set_cache_dir
from boilerbench.configs import extractor_config, make_extractor
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.extractors import members
from boilerbench.extractors.base import BaseExtractor, Extraction
from boilerbench.extractors.ensembles import MajorityVote, WeightedVote

TITLE = "Harbour festival returns"
P1 = "Boats from twelve villages sailed into the harbour on Saturday morning for the festival."
P2 = "Organisers counted more visitors than in any earlier year and promised a longer programme."
HTML = (
    "<html><body><div><a href='/'>Homepage</a></div><div><a href='/x'>Sections</a></div>"
    f"<h1>{TITLE}</h1><p>{P1}</p><p>{P2}</p><div>Copyright notice</div></body></html>"
)
# blocks:        Homepage, Sections, title, P1, P2, Copyright notice
MEMBER_TEXTS = {
    "a": f"{TITLE}\n{P1}\n{P2}",  # votes 0 0 1 1 1 0
    "b": P1,  # votes 0 0 0 1 0 0
    "c": f"{P1}\n{P2}\nCopyright notice",  # votes 0 0 0 1 1 1
}


class Fixed(BaseExtractor):
    def __init__(self, text: str | None) -> None:
        self.text = text

    def extract(self, page: Page) -> Extraction:
        if self.text is None:
            raise RuntimeError("this member always fails")
        return Extraction(self.text)


def fakes(*names: str) -> dict[str, Fixed]:
    """Members giving the fixed texts of ``names`` (``broken`` always fails)."""
    texts: dict[str, str | None] = {**MEMBER_TEXTS, "broken": None}
    return {n: Fixed(texts[n]) for n in names}


@pytest.fixture
def page() -> Page:
    return Page("p", HTML, f"{P1}\n{P2}")


def test_votes_are_the_aligned_member_texts(page):
    votes = MajorityVote(fakes("a", "b", "c")).votes(page)
    assert [b for b in page.blocks.texts] == ["Homepage", "Sections", TITLE, P1, P2, "Copyright notice"]
    assert votes.T.tolist() == [[0, 0, 1, 1, 1, 0], [0, 0, 0, 1, 0, 0], [0, 0, 0, 1, 1, 1]]


@pytest.mark.parametrize(
    ("k", "expected"),
    [(None, [0, 0, 0, 1, 1, 0]), (1, [0, 0, 1, 1, 1, 1]), (2, [0, 0, 0, 1, 1, 0]), (3, [0, 0, 0, 1, 0, 0])],
)
def test_majority_vote_keeps_blocks_with_k_votes(page, k, expected):
    extraction = MajorityVote(fakes("a", "b", "c"), k=k).extract(page)
    assert extraction.labels.tolist() == expected
    assert extraction.text == page.blocks.join(np.asarray(expected, dtype=bool))


def test_a_failing_member_votes_for_nothing(page):
    # a and broken: k defaults to 2 of 2, and broken keeps nothing
    assert MajorityVote(fakes("a", "broken")).extract(page).labels.tolist() == [0] * 6
    assert MajorityVote(fakes("a", "broken"), k=1).extract(page).labels.tolist() == [0, 0, 1, 1, 1, 0]


def test_weighted_vote_learns_each_members_block_f1(page):
    vote = WeightedVote(fakes("a", "b", "c")).fit([], [page])
    # gold blocks: P1, P2. a: 2 of 3 kept are gold -> F1 4/5; b: 1 of 1, recall 1/2 -> 2/3; c: 4/5
    np.testing.assert_allclose(vote.weights_, [0.8, 2 / 3, 0.8])
    # shares: title 0.8/2.2667 = 0.353, P1 1, P2 1.6/2.2667 = 0.706, copyright 0.353
    assert vote.extract(page).labels.tolist() == [0, 0, 0, 1, 1, 0]
    low = WeightedVote(fakes("a", "b", "c"), threshold=0.35).fit([], [page])
    assert low.extract(page).labels.tolist() == [0, 0, 1, 1, 1, 1]


def test_weighted_vote_save_load(tmp_path, page):
    vote = WeightedVote(fakes("a", "b", "c")).fit([], [page])
    vote.save(tmp_path)
    loaded = WeightedVote(fakes("a", "b", "c")).load(tmp_path)
    np.testing.assert_array_equal(loaded.weights_, vote.weights_)
    with pytest.raises(ValueError, match="other hyperparameters"):
        WeightedVote(fakes("a", "b", "c"), threshold=0.4).load(tmp_path)


def test_member_votes_are_cached_per_page(tmp_path, page):
    set_cache_dir(tmp_path)
    calls = []

    class Counting(Fixed):
        def extract(self, page):
            calls.append(page.id)
            return super().extract(page)

    member = members.Member("a", {"fake": "a"}, Counting(P1), "v1")
    first = member.labels(page)
    again = members.Member("a", {"fake": "a"}, Counting(P1), "v1").labels(Page("p2", HTML, ""))
    assert calls == ["p"] and first.tolist() == again.tolist() == [0, 0, 0, 1, 0, 0]
    members.Member("a", {"fake": "a"}, Counting(P1), "v2").labels(page)  # another code version
    assert calls == ["p", "p"]


def test_bad_member_lists_are_config_errors():
    with pytest.raises(ConfigError, match="extractor/members="):
        MajorityVote(["a", "b"])  # type: ignore[arg-type]  # names: the form before nested configs
    with pytest.raises(ConfigError, match="at least one member"):
        MajorityVote({})
    with pytest.raises(ConfigError, match="between 1 and"):
        MajorityVote(fakes("a", "b"), k=3)


def test_learned_members_are_refused():
    with pytest.raises(ConfigError, match="learned extractor"):
        MajorityVote({"a": Fixed(P1), "crf": make_extractor("crf")})


def test_members_are_nested_configs_selected_on_the_command_line():
    """The config lists members as the extractors' own configs; ``extractor/members=[...]`` picks
    others, and the older ``extractor.members=[names]`` fails with one message naming the new form."""
    config = extractor_config("majority_vote", ["extractor/members=[bte,cetd]", "k=2"])
    assert config["members"] == {"bte": extractor_config("bte"), "cetd": extractor_config("cetd")}
    vote = make_extractor("majority_vote", ["extractor/members=[bte,cetd]"])
    assert list(vote.members) == ["bte", "cetd"] and type(vote.members["cetd"]).__name__ == "CETD"
    assert [m.name for m in vote.built_members()] == ["bte", "cetd"]
    with pytest.raises(ConfigError, match=r"extractor/members=\["):
        extractor_config("majority_vote", ["members=[bte,cetd]"])


def test_run_py_names_the_new_members_form_in_one_line():
    done = subprocess.run(
        [sys.executable, "run.py", "extractor=stack", "extractor.members=[resiliparse]"],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "extractor/members=[" in done.stderr
