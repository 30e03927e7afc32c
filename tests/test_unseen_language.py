"""studies.unseen_language: the mixture without one language's pages."""

from boilerbench.datasets.base import Split
from boilerbench.datasets.mixture import mixture
from boilerbench.datasets.page import Page
from studies.unseen_language import headline_config, without_language


def page(i: int, language: str) -> Page:
    return Page(f"p{i}", "<html><body><p>text</p></body></html>", "text", meta={"language": language})


def test_without_language_drops_that_language_from_training_and_validation_only():
    # what would fail: the language kept, another one dropped, or test pages let into the mixture
    split = Split("s", [page(0, "zh"), page(1, "en"), page(2, "zh")], [page(3, "zh"), page(4, "ru")], [page(5, "en")])
    kept = mixture({"s": without_language(split, "zh")}, "proportional")
    assert [p.id for p in kept.train] == ["p1"] and [p.id for p in kept.validation] == ["p4"] and kept.test == []
    whole = mixture({"s": without_language(split, None)}, "proportional")
    assert [p.id for p in whole.train] == ["p0", "p1", "p2"] and [p.id for p in whole.validation] == ["p3", "p4"]


def test_a_split_without_training_pages_brings_its_test_pages():
    # L3S-GN1 and the other test-only datasets train on all their pages (as the mixture takes them)
    split = Split("all", [], [], [page(0, "en"), page(1, "el")])
    assert [p.id for p in mixture({"all": without_language(split, "el")}, "proportional").train] == ["p0"]


def test_the_seed_is_the_mixtures_draw_and_the_stacks_own():
    # seed=1 alone would redraw the mixture but keep the trees' seed at the config's 0
    cfg = headline_config("stack_fast", 1, ["extractor.consent=false"])
    assert (cfg.seed, cfg.extractor.seed, cfg.extractor.consent) == (1, 1, False)
    assert headline_config("stack", 0, []).extractor.seed == 0
