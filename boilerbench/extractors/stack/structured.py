"""Structured data as evidence: schema.org types a page declares (JSON-LD, microdata, RDFa) and
where its blocks sit among them, and the page's URL.

Publishers mark up what a page is for search engines: a product page carries a ``Product`` with
its ``Offer``, a thread a ``DiscussionForumPosting`` with its ``Comment``\\ s, a category page an
``ItemList``, a news story a ``NewsArticle``. The types are read from JSON-LD (``<script
type="application/ld+json">``, parsed with :mod:`json`, ``@graph`` and nested objects walked),
microdata (``itemtype``) and RDFa (``typeof``), each mapped to a family (:data:`FAMILIES`):

- page features (:func:`page_evidence`): per family, ``log1p`` of the number of typed objects, and
  the URL's words (:data:`URL_PATTERNS`: ``/thread/``, ``/product/``, ``/category/``, ``/docs/``,
  a date in the path ...) with its depth and query: the page-type classifier's evidence (rs-trafilatura's
  classifier reads the same kinds of signals: URL patterns, schema.org types, structure);
- block features (:func:`block_evidence`): whether the block lies inside a microdata or RDFa item
  of each family, and inside a body property (``articleBody``, ``text``, ``description``,
  ``reviewBody``);
- a fallback text (:func:`fallback_text`): the JSON-LD ``description`` of a ``Product`` whose words
  the extraction mostly lacks (a product whose description is only in its JSON-LD, or that the
  blocks lost), appended to the extracted text (rs-trafilatura's JSON-LD fallback for products).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from urllib.parse import urlsplit

import numpy as np
from lxml import etree

from boilerbench.datasets.blocks import Blocks

#: schema.org types (the last segment of a type's IRI) by family.
FAMILIES: dict[str, frozenset[str]] = {
    "product": frozenset(
        "Product ProductGroup ProductModel IndividualProduct Offer AggregateOffer Car Vehicle Book "
        "SoftwareApplication".split()
    ),
    "article": frozenset(
        "Article NewsArticle BlogPosting Blog ReportageNewsArticle AnalysisNewsArticle OpinionNewsArticle "
        "ScholarlyArticle Report LiveBlogPosting SocialMediaPosting Recipe HowTo".split()
    ),
    "forum": frozenset("DiscussionForumPosting Comment Answer Question QAPage Conversation Message".split()),
    # not ListItem: every BreadcrumbList is made of them
    "listing": frozenset("ItemList CollectionPage SearchResultsPage OfferCatalog DataCatalog".split()),
    "faq": frozenset(["FAQPage"]),
    "documentation": frozenset("TechArticle APIReference SoftwareSourceCode".split()),
    "service": frozenset(
        "Organization LocalBusiness Service ContactPage AboutPage ProfessionalService Corporation Store "
        "FinancialProduct MedicalBusiness".split()
    ),
    "review": frozenset("Review AggregateRating Rating".split()),
    "event": frozenset("Event".split()),
    "person": frozenset("Person ProfilePage".split()),
}
FAMILY_NAMES = tuple(FAMILIES)
#: Families whose microdata/RDFa items become block features.
BLOCK_FAMILIES = ("product", "article", "forum", "listing", "review")
#: itemprop values of a body of text.
BODY_PROPS = frozenset("articleBody text description reviewBody acceptedAnswer suggestedAnswer".split())
#: Words of a page's URL (host and path, lowercased) and the page type they point to.
URL_PATTERNS: dict[str, re.Pattern[str]] = {
    "forum": re.compile(r"forum|thread|topic|/t/|discussion|community|board|viewtopic|showthread|/questions?/|reddit"),
    "product": re.compile(r"product|/p/|/dp/|/item|/shop/|/buy|/sku|/store/"),
    "listing": re.compile(r"categor|/c/|/tags?/|search|/list|archive|[?&]page=|/page/\d|results|/jobs|director"),
    "collection": re.compile(r"collection|gallery|catalog|browse|/shop/?$|/all"),
    "documentation": re.compile(r"docs?[./]|documentation|manual|reference|/api|guide|tutorial|wiki|/man/|/help|learn"),
    "article": re.compile(r"/\d{4}/\d{1,2}/|blog|news|article|/post|story|/\d{4}-\d{2}-\d{2}"),
    "service": re.compile(r"service|pricing|about|contact|solution|feature|/plans|company|agency"),
}
URL_STATS = ("url_depth", "url_query", "url_digits", "url_dashes", "url_root")
EVIDENCE_NAMES = tuple(
    [f"schema.{f}" for f in FAMILY_NAMES] + [f"url.{t}" for t in URL_PATTERNS] + [f"url.{s}" for s in URL_STATS]
)
BLOCK_EVIDENCE_NAMES = tuple([f"schema.in_{f}" for f in BLOCK_FAMILIES] + ["schema.in_body_prop"])
_FAMILY_OF = {t: f for f, types in FAMILIES.items() for t in types}


def _type_names(value: object) -> list[str]:
    """The schema.org type names of an ``@type``/``itemtype``/``typeof`` value (IRIs or names)."""
    names = value if isinstance(value, list) else str(value or "").split()
    return [str(name).rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1] for name in names if name]


def json_ld_objects(root: etree._Element | None) -> Iterator[dict]:
    """Every JSON object of the page's JSON-LD scripts, nested ones and ``@graph`` members
    included; a script that is not valid JSON is skipped."""
    if root is None:
        return
    for script in root.iter("script"):
        if (script.get("type") or "").strip().lower() != "application/ld+json" or not script.text:
            continue
        try:
            data = json.loads(script.text)
        except ValueError:
            continue
        stack = [data]
        while stack:
            value = stack.pop()
            if isinstance(value, dict):
                yield value
                stack.extend(value.values())
            elif isinstance(value, list):
                stack.extend(value)


#: The elements (``root`` and below, in document order) with an ``itemtype``, ``typeof`` or
#: ``itemprop`` attribute: one walk of the tree in C, where a walk in Python reads two attributes
#: of every element.
_ANNOTATED = etree.XPath("descendant-or-self::*[@itemtype or @typeof or @itemprop]")


def _typed_elements(annotated: list[etree._Element]) -> Iterator[tuple[etree._Element, list[str]]]:
    """The microdata and RDFa items among ``annotated`` (:data:`_ANNOTATED`) and their type names."""
    for element in annotated:
        declared = element.get("itemtype") or element.get("typeof")
        if declared:
            yield element, _type_names(declared)


def schema_families(root: etree._Element | None) -> dict[str, int]:
    """How many typed objects of each family the page declares (JSON-LD, microdata, RDFa)."""
    counts = dict.fromkeys(FAMILY_NAMES, 0)
    if root is None:
        return counts
    names = [n for obj in json_ld_objects(root) for n in _type_names(obj.get("@type"))]
    names += [n for _, types in _typed_elements(_ANNOTATED(root)) for n in types]
    for name in names:
        family = _FAMILY_OF.get(name)
        if family:
            counts[family] += 1
    return counts


def url_features(url: str | None) -> list[float]:
    """Per :data:`URL_PATTERNS` type, whether the URL matches; then :data:`URL_STATS` (path depth,
    a query, digits in the path, dashes in the path, the site's root page); all 0 without a URL."""
    if not url:
        return [0.0] * (len(URL_PATTERNS) + len(URL_STATS))
    parts = urlsplit(url.lower())
    text = f"{parts.netloc}{parts.path}{'?' + parts.query if parts.query else ''}"
    path = parts.path.strip("/")
    flags = [float(bool(pattern.search(text))) for pattern in URL_PATTERNS.values()]
    depth = float(len(path.split("/"))) if path else 0.0
    return flags + [
        depth,
        float(bool(parts.query)),
        float(np.log1p(sum(c.isdigit() for c in path))),
        float(np.log1p(path.count("-"))),
        float(not path),
    ]


def page_evidence(blocks: Blocks, url: str | None) -> np.ndarray:
    """The page's :data:`EVIDENCE_NAMES` row: schema.org families (``log1p`` counts) and URL features."""
    counts = schema_families(blocks.root)
    return np.array([np.log1p(counts[f]) for f in FAMILY_NAMES] + url_features(url))


def block_evidence(blocks: Blocks) -> np.ndarray:
    """Per block, :data:`BLOCK_EVIDENCE_NAMES`: inside a microdata/RDFa item of each of
    :data:`BLOCK_FAMILIES`, and inside a body property (0/1)."""
    n = len(blocks)
    out = np.zeros((n, len(BLOCK_EVIDENCE_NAMES)), dtype=np.float32)
    if not n or blocks.root is None:
        return out
    marks: dict[int, set[int]] = {}
    keep_alive = []
    annotated = _ANNOTATED(blocks.root)
    for element, types in _typed_elements(annotated):
        columns = {BLOCK_FAMILIES.index(_FAMILY_OF[t]) for t in types if _FAMILY_OF.get(t) in BLOCK_FAMILIES}
        if columns:
            marks.setdefault(id(element), set()).update(columns)
            keep_alive.append(element)
    body = len(BLOCK_FAMILIES)
    for element in annotated:
        if set((element.get("itemprop") or "").split()) & BODY_PROPS:
            marks.setdefault(id(element), set()).add(body)
            keep_alive.append(element)
    if not marks:
        return out
    for i in range(n):
        element = blocks.owner(i)
        while element is not None:
            for column in marks.get(id(element), ()):
                out[i, column] = 1.0
            element = element.getparent()
    return out


def product_descriptions(root: etree._Element | None) -> list[str]:
    """The ``description`` texts of the page's JSON-LD products (HTML tags stripped, whitespace collapsed)."""
    texts = []
    for obj in json_ld_objects(root):
        if any(_FAMILY_OF.get(t) == "product" for t in _type_names(obj.get("@type"))):
            description = obj.get("description")
            if isinstance(description, str) and description.strip():
                text = re.sub(r"<[^>]+>", " ", description)
                texts.append(" ".join(text.split()))
    return list(dict.fromkeys(texts))


def fallback_text(blocks: Blocks, extracted: str, min_words: int = 8) -> str:
    """The JSON-LD product descriptions of at least ``min_words`` words of which the extraction
    holds fewer than half the words (lowercased ``\\w+`` runs), joined by blank lines ("" when none)."""
    descriptions = product_descriptions(blocks.root)
    have = set(re.findall(r"\w+", extracted.lower())) if descriptions else set()
    missing = []
    for text in descriptions:
        words = re.findall(r"\w+", text.lower())
        if len(words) >= min_words and sum(w in have for w in words) < len(words) / 2:
            missing.append(text)
    return "\n\n".join(missing)


#: The schema.org families and the URL patterns that type a page on their own for
#: :func:`evident_type`: those right on at least 4 in 5 of WCXB's training pages where they are
#: the only evidence (``python -m studies.typed_pages`` prints the agreement; a forum family
#: declared alone is a blog's comments as often as a thread, a listing URL a collection's or a
#: service's page as often as a listing's).
EVIDENT_FAMILIES = ("article", "product")
EVIDENT_URLS = ("article",)
TYPE_FAMILIES = ("article", "forum", "product", "listing", "documentation")


def evident_type(blocks: Blocks, url: str | None) -> str | None:
    """A page's type where its evidence is unambiguous, else None: the page declares one of
    :data:`TYPE_FAMILIES` alone (schema.org) and it is one of :data:`EVIDENT_FAMILIES`, with no
    URL pattern naming another type; or it declares none and its URL matches one of
    :data:`URL_PATTERNS` alone, one of :data:`EVIDENT_URLS`. For typing the pages of datasets
    without page types (issue 33)."""
    counts = schema_families(blocks.root)
    declared = {f for f in TYPE_FAMILIES if counts[f]}
    flags = url_features(url)[: len(URL_PATTERNS)]
    matched = {t for t, flag in zip(URL_PATTERNS, flags, strict=True) if flag and t != "service"}
    if len(declared) > 1 or (declared and matched and matched != declared):
        return None
    if declared:
        family = declared.pop()
        return family if family in EVIDENT_FAMILIES else None
    pattern = matched.pop() if len(matched) == 1 else None
    return pattern if pattern in EVIDENT_URLS else None
