"""Cookie-consent dialogs: the blocks inside a consent-management platform's container.

A consent banner is boilerplate on every page that has one, yet it is a paragraph or two of
well-formed prose ("We use cookies to personalise content and ads ..."), in the page's language,
often placed right after the article in the source: the block features see text and the members
disagree about it. Its container, though, is named by the platform that injected it, and those
names are few: OneTrust's ``onetrust-*`` and ``ot-sdk-*``, Cookiebot's ``CybotCookiebot*``,
Didomi's ``didomi-*``, the WordPress consent plugins' ``cookielawinfo-*``, ``cli-*`` and
``cmplz-*``, and so on (:data:`CONSENT_PREFIXES`). A block whose element, or one of its
ancestors, carries such a class or id is marked (:func:`consent_mask`), and the stack drops it
after decoding (``consent``).

Two guards keep a wrong match from emptying a page: ``html`` and ``body`` are never containers
(a site marks its body ``cookies-bar-hidden`` once the visitor has chosen), and a container that
holds more than :data:`MAX_SHARE` of the page's words is no dialog and is ignored. On the
training mixture's training and validation pages the containers hold no gold word
(``python -m studies.consent`` counts them).
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np
from lxml import etree

from boilerbench.datasets.blocks import Blocks

#: The class and id prefixes of consent-management platforms, matched at the start of a class
#: token or of the id, case-insensitively: OneTrust, Cookiebot, Didomi, Usercentrics, Quantcast
#: Choice, TrustArc, Sourcepoint, iubenda, Complianz, CookieYes, Osano, Termly, Borlabs, Cookie
#: Notice, CookieLawInfo / GDPR Cookie Consent (``cookielawinfo``, ``wt-cli``, ``cli-modal``,
#: ``cli-bar``, ``cliSettingsPopup``), Moove GDPR, EU Cookie Law, Axeptio, Osano's cookieconsent
#: (``cc-window``), Google's Funding Choices (``fc-consent-root``), Klaro, and the generic names of
#: consent bars. A prefix ends where no other word goes on: ``truste-`` and ``truste_``, not
#: ``truste``, with which ``trusted-people`` begins (a WCXB page's testimonials).
CONSENT_PREFIXES = (
    "onetrust",
    "ot-sdk",
    "optanon",
    "cybotcookiebot",
    "didomi",
    "usercentrics",
    "qc-cmp",
    "truste-",
    "truste_",
    "trustarc",
    "sp_message",
    "iubenda-cs",
    "cmplz",
    "cky-",
    "osano-cm",
    "termly",
    "borlabscookie",
    "cookie-notice",
    "cookielawinfo",
    "wt-cli",
    "cli-modal",
    "cli-bar",
    "clisettingspopup",
    "moove-gdpr",
    "moove_gdpr",
    "eu-cookie",
    "axeptio",
    "cc-window",
    "fc-consent",
    "klaro",
    "cookie-consent",
    "cookie-bar",
    "cookie_bar",
    "cookies-bar",
    "cookies_bar",
    "cookies-banner",
)

_CONSENT = re.compile("|".join(re.escape(p) for p in CONSENT_PREFIXES))

#: Never a dialog's container, whatever their classes say.
_NOT_CONTAINERS = frozenset(("html", "body"))

#: The largest share of a page's words that a consent container may hold.
MAX_SHARE = 0.5


def is_consent_container(element: etree._Element) -> bool:
    """Whether ``element`` carries a consent platform's class or id (:data:`CONSENT_PREFIXES`)."""
    tag = element.tag
    if not isinstance(tag, str) or tag.lower() in _NOT_CONTAINERS:
        return False
    classes, element_id = element.get("class"), element.get("id")
    return consent_names(classes or "", element_id or "") if classes or element_id else False


@lru_cache(maxsize=65536)
def consent_names(classes: str, element_id: str) -> bool:
    """Whether a class token of ``classes`` or ``element_id`` starts with a consent prefix (a page
    repeats a few class values on many elements, so each pair is matched once)."""
    return any(_CONSENT.match(name.lower()) for name in (*classes.split(), element_id) if name)


def consent_mask(blocks: Blocks) -> np.ndarray:
    """True for each block inside a consent container (its nearest one holding at most
    :data:`MAX_SHARE` of the page's words)."""
    n = len(blocks)
    containers = np.zeros(n, dtype=np.int64)  # id of each block's nearest container, 0 for none
    found: dict[int, int] = {}  # the same for each element visited
    keep_alive = []  # the visited elements, so that their ids stay theirs
    for i in range(n):
        element = blocks.owner(i)
        chain = []
        nearest = 0
        while element is not None:
            key = id(element)
            if key in found:
                nearest = found[key]
                break
            chain.append(element)
            if is_consent_container(element):
                nearest = key
                break
            element = element.getparent()
        for visited in chain:
            found[id(visited)] = nearest
        keep_alive.extend(chain)
        containers[i] = nearest
    mask = np.zeros(n, dtype=bool)
    words = blocks.word_counts
    for container in np.unique(containers[containers != 0]):
        inside = containers == container
        if words[inside].sum() <= MAX_SHARE * words.sum():
            mask |= inside
    return mask
