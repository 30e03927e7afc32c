"""The pretrained models shipped in the package (`make model`): boilerbench/models/default.bbmodel,
the fast stack, accurate.bbmodel, the cascade of the fast and the headline stack, and
multilingual.bbmodel, the arbiter between the fast stack and Readability. Each loads
(its golden outputs hold under this code), and on hand-made pages it keeps the article, every post
of a thread and every item of a listing, and drops the menu and the footer."""

from __future__ import annotations

import subprocess
import sys

import pytest

import boilerbench
from boilerbench.api import DEFAULT_MODEL, SHIPPED_MODELS, model_path
from boilerbench.experiments.golden import GOLDEN_PAGES
from boilerbench.experiments.model_file import load_model_file

pytestmark = pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no model shipped in this checkout")

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


@pytest.fixture(scope="module", params=list(SHIPPED_MODELS))
def model(request):
    return boilerbench.load_model(request.param)


def test_the_shipped_models_are_the_fast_stack_the_cascade_and_the_arbiter_all_trained_on_the_mixture():
    assert [shipped.extractor for shipped in SHIPPED_MODELS.values()] == ["stack_fast", "cascade", "arbiter"]
    for name, shipped in SHIPPED_MODELS.items():
        _, manifest = load_model_file(model_path(name))
        assert manifest["extractor"] == shipped.extractor and "daniel" in manifest["trained_on"]
        assert set(manifest["golden"]) == set(GOLDEN_PAGES)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_article_thread_and_listing_kept_whole_menu_and_footer_dropped(model, name):
    text = boilerbench.extract(GOLDEN_PAGES[name], model=model)
    if name == "en_listing" and model.name in ("stack_fast", "arbiter"):
        # the fast stack keeps every item and drops the listing's heading ("Garden tools"), and
        # the arbiter keeps the fast stack's extraction there
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


GREEK_PARAGRAPHS = [
    "Η κυβέρνηση ανακοίνωσε σήμερα νέα μέτρα για τη στήριξη των νοικοκυριών που πλήττονται από την αύξηση "
    "των τιμών της ενέργειας, με επιδότηση που θα καταβληθεί τον επόμενο μήνα.",
    "Σύμφωνα με τον υπουργό Οικονομικών, το πρόγραμμα θα κοστίσει περίπου εξακόσια εκατομμύρια ευρώ και θα "
    "χρηματοδοτηθεί από τα έσοδα του προϋπολογισμού, χωρίς νέους φόρους.",
    "Η αντιπολίτευση επέκρινε τα μέτρα ως ανεπαρκή και ζήτησε μόνιμη μείωση του φόρου στην ενέργεια, ενώ οι "
    "καταναλωτές περιμένουν τις λεπτομέρειες της εφαρμογής.",
]
TEASERS = "".join(
    f"<div class='teaser'><h3><a href='/news/{i}'>Τίτλος άλλης είδησης αριθμός {i} για την οικονομία</a></h3>"
    f"<p>Σύντομη περίληψη της είδησης {i} με λίγες λέξεις για τον αναγνώστη της σελίδας.</p></div>"
    for i in range(1, 9)
)
#: A short Greek article beside a rail of eight teasers: the case the arbiter was built for (DANIEL's
#: Greek and Russian sites, where the stack kept the teasers and Readability's single element did not).
TEASER_RAIL_PAGE = (
    "<html><head><title>Νέα μέτρα</title></head><body><nav><a href='/'>Αρχική</a> <a href='/p'>Πολιτική</a></nav>"
    "<div class='main'><article><h1>Νέα μέτρα για την ενέργεια</h1>"
    + "".join(f"<p>{p}</p>" for p in GREEK_PARAGRAPHS)
    + f"</article><aside class='related'>{TEASERS}</aside></div><footer>© 2026 Εφημερίδα</footer></body></html>"
)


def test_the_multilingual_model_drops_the_teasers_that_the_fast_stack_keeps():
    fast = boilerbench.extract(TEASER_RAIL_PAGE)
    assert fast is not None and "Σύντομη περίληψη της είδησης 8" in fast
    article = "\n".join(["Νέα μέτρα για την ενέργεια", *GREEK_PARAGRAPHS])
    assert boilerbench.extract(TEASER_RAIL_PAGE, model="multilingual") == article
