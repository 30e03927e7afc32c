"""The stack's consent rule: the blocks inside a consent platform's container, on hand-made pages."""

from __future__ import annotations

from boilerbench.datasets.blocks import segment
from boilerbench.extractors.stack.consent import consent_mask, is_consent_container

ARTICLE = " ".join(["The council approved the new budget after a long debate."] * 6)
NOTICE = "We use cookies to personalise content and ads. Accept all or manage your choices."


def test_the_blocks_of_a_consent_dialog_are_marked_and_the_article_is_not():
    """OneTrust's banner (an id), the GDPR Cookie Consent plugin's bar (a second class token) and
    Osano's window are containers at any depth; the text after the dialog (its tail) is outside.
    What would fail: ids or later class tokens not read, the prefix matched case-sensitively, a
    tail counted in."""
    html = (
        f"<html><body><p>{ARTICLE}</p>"
        f"<div id='onetrust-banner-sdk'><div><p>{NOTICE}</p><button>Accept</button></div></div>After."
        f"<section class='wrap CLI-bar'><span>{NOTICE}</span></section>"
        f"<div class='cc-window cc-banner'>{NOTICE}</div></body></html>"
    )
    blocks = segment(html)
    assert blocks.texts == [ARTICLE, NOTICE, "Accept", "After.", NOTICE, NOTICE]
    assert consent_mask(blocks).tolist() == [False, True, True, False, True, True]


def test_names_that_only_contain_a_prefix_and_the_page_body_are_not_containers():
    """A prefix matches at the start of a class token or of the id only; ``body`` and ``html``
    are never containers, whatever their classes. What would fail: a substring search (a post
    titled ``no-cookie-consent``), TrustArc's prefix without its separator (WCXB's
    ``trusted-people``), or a site's body class emptying its page."""
    html = (
        f"<html class='cookie-consent-given'><body class='cookies-bar-hidden'>"
        f"<div class='post no-cookie-consent'><p>{ARTICLE}</p></div>"
        f"<div class='trusted-people'><p>{NOTICE}</p></div></body></html>"
    )
    blocks = segment(html)
    assert consent_mask(blocks).tolist() == [False, False]
    root = blocks.root
    assert not is_consent_container(root) and not is_consent_container(root.find("body"))


def test_a_container_that_holds_most_of_the_page_is_ignored():
    """A wrapper named like a consent bar around the whole article (more than half the page's
    words) is no dialog. What would fail: the share guard missing, which would empty the page."""
    html = f"<html><body><div class='cookie-bar-wrapper'><p>{ARTICLE}</p></div><p>{NOTICE}</p></body></html>"
    assert consent_mask(segment(html)).tolist() == [False, False]
