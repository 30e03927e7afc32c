"""The pretrained models shipped in the package (`make model`): boilerbench/models/default.bbmodel,
the fast stack, and accurate.bbmodel, the cascade of the fast and the headline stack. Each loads
(its golden outputs hold under this code), and on hand-made pages it keeps the article, every post
of a thread and every item of a listing, and drops the menu and the footer."""

from __future__ import annotations

import subprocess
import sys

import pytest

import boilerbench
from boilerbench.api import DEFAULT_MODEL, model_path
from boilerbench.experiments.golden import GOLDEN_PAGES
from boilerbench.experiments.model_file import load_model_file

pytestmark = pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no model shipped in this checkout")
#: Each shipped model by the name ``load_model`` takes (None: the default), with its extractor.
SHIPPED = {None: "stack_fast", "accurate": "cascade"}

GREEK_POST = "Το δημοτικό συμβούλιο συνεδρίασε την Τρίτη το βράδυ για να συζητήσει τον νέο προϋπολογισμό των σχολείων"
EXPECTED = {
    "en_article": "\n".join(
        [
            "Council approves the new budget for schools",
            "By Anna Smith",
            "The city council met on Tuesday evening to discuss the new budget for schools and public libraries, "
            "and after a long debate it decided that more money would go to education next year.",
            "Teachers welcomed the decision, which they said had been expected for a long time, while some members "
            "of the council asked where the money would come from and whether taxes would rise.",
        ]
    ),
    "el_forum": "\n".join(f"χρήστης{i}\n{GREEK_POST}, απάντηση {i}." for i in range(1, 6)),
    "en_listing": "\n".join(
        ["Garden tools"]
        + [
            f"Spade model {i}\nA sturdy steel spade with an ash handle, item {i}.\n{10 + i}.99 EUR"
            for i in range(1, 11)
        ]
    ),
}


@pytest.fixture(scope="module", params=list(SHIPPED), ids=["default", "accurate"])
def model(request):
    return boilerbench.load_model(request.param)


def test_the_shipped_models_are_the_multilingual_fast_stack_and_the_cascade():
    for name, extractor in SHIPPED.items():
        _, manifest = load_model_file(model_path(name))
        assert manifest["extractor"] == extractor and "daniel" in manifest["trained_on"]
        assert set(manifest["golden"]) == set(GOLDEN_PAGES)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_article_thread_and_listing_kept_whole_menu_and_footer_dropped(model, name):
    text = boilerbench.extract(GOLDEN_PAGES[name], model=model)
    if name == "en_listing" and model.name == "stack_fast":
        # the fast stack keeps every item and drops the listing's heading ("Garden tools")
        assert text == EXPECTED[name].split("\n", 1)[1]
    else:
        assert text == EXPECTED[name]


@pytest.mark.parametrize(
    ("name", "first"), [("ru_article", "Городской совет утвердил бюджет"), ("zh_article", "市议会通过新预算")]
)
def test_russian_and_chinese_articles(model, name, first):
    text = boilerbench.extract(GOLDEN_PAGES[name], model=model)
    assert text is not None and text.splitlines()[0] == first and len(text.splitlines()) == 2
    assert "Home" not in text and "©" not in text


def test_extracting_with_the_default_model_never_imports_lightgbm():
    """Its trees are compiled (lleaves), so LightGBM, and the scikit-learn and SciPy it imports,
    stay out of the command's start and of every worker's memory."""
    script = (
        "import sys, boilerbench; from boilerbench.experiments.golden import GOLDEN_PAGES; "
        "assert boilerbench.extract(GOLDEN_PAGES['ru_article']); "
        "print(sorted(m for m in ('lightgbm', 'sklearn', 'scipy') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
