"""A page's metadata: title, author, publication date, language, site name and canonical URL.

Read from the parsed page (:attr:`boilerbench.datasets.blocks.Blocks.root`), in the order of the
sources publishers fill most reliably (measured against WCXB's gold fields by
``studies/metadata.py``):

- title: the first ``<h1>`` whose text appears in the page's declared title (``og:title``,
  ``twitter:title``, ``<title>``: an h1 inside it is the title without the site's suffix); else
  the declared title without the site suffix (the longest part between `` | ``, `` - ``,
  `` – ``, `` — `` and `` · ``); else the first ``<h1>``;
- author: JSON-LD ``author`` names (schema.org), else ``<meta name="author">`` and its variants,
  else the first byline element (``itemprop="author"``, a ``rel="author"`` link, a class naming
  an author, a byline or a forum post's user name), without its lead-in ("By", "Author:");
- date: htmldate (Barbaresi 2020, JOSS 5(51) 2439; installed with trafilatura), original
  publication date, ``YYYY-MM-DD``;
- language: identified from the extracted text (:func:`boilerbench.language.detect`), else the
  declared one (``<html lang>``, ``content-language``, ``og:locale``);
- site name: ``og:site_name``, ``application-name``, JSON-LD ``publisher.name``, else the
  URL's host;
- canonical URL: ``<link rel="canonical">``, ``og:url``, else the page's URL.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urljoin, urlparse

from lxml import etree

from boilerbench.language import detect

FIELDS = ("title", "author", "date", "language", "sitename", "canonical_url", "page_type")
_TITLE_SEPARATORS = re.compile(r"\s+[|\-–—·»]\s+")
_BYLINE_LEAD = re.compile(r"^(?:(?:written|posted|article|recipe|story|words)\s+)?(?:by|author)\s*:?\s+", re.I)
_BYLINE_CLASS = re.compile(r"author[-_]?name|byline[-_]*name|\bauthor\b|\bbyline\b|\busername\b")
#: A byline longer than this is a sentence, not names.
MAX_BYLINE_WORDS = 6
_LANGUAGE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")


def _text(element: etree._Element) -> str:
    return " ".join("".join(element.itertext()).split())


def _meta(root: etree._Element, *keys: str) -> str | None:
    """The first non-blank ``content`` of a ``<meta>`` whose ``name``, ``property`` or
    ``itemprop`` is one of ``keys`` (case-insensitive), in the order of ``keys``."""
    found: dict[str, str] = {}
    for meta in root.iter("meta"):
        content = " ".join((meta.get("content") or "").split())
        for attribute in ("property", "name", "itemprop"):
            key = (meta.get(attribute) or "").lower()
            if content and key in keys and key not in found:
                found[key] = content
    return next((found[k] for k in keys if k in found), None)


def _json_ld(root: etree._Element) -> Iterator[dict]:
    """Every JSON-LD object of the page (``@graph`` members included); bad JSON is skipped."""
    for script in root.iter("script"):
        if (script.get("type") or "").lower() != "application/ld+json" or not script.text:
            continue
        try:
            data = json.loads(script.text)
        except ValueError:
            continue
        stack = data if isinstance(data, list) else [data]
        while stack:
            item = stack.pop(0)
            if isinstance(item, dict):
                yield item
                graph = item.get("@graph")
                stack.extend(graph if isinstance(graph, list) else [])
            elif isinstance(item, list):
                stack.extend(item)


def _names(value: Any) -> list[str]:
    """The person names in a JSON-LD ``author`` value (a string, an object or a list of them)."""
    if isinstance(value, str):
        return [value.strip()] if value.strip() and not value.startswith("http") else []
    if isinstance(value, dict):
        return _names(value.get("name"))
    if isinstance(value, list):
        return [name for item in value for name in _names(item)]
    return []


def _strip_site(title: str) -> str:
    """The declared title without the site name: the longest part between separators."""
    parts = [p.strip() for p in _TITLE_SEPARATORS.split(title) if p.strip()]
    return max(parts, key=len) if parts else title.strip()


def find_title(root: etree._Element) -> str | None:
    """The page's title (see the module docstring)."""
    declared = _meta(root, "og:title", "twitter:title")
    title_element = root.find(".//title")
    if declared is None and title_element is not None:
        declared = _text(title_element) or None
    headings = [t for t in (_text(h) for h in root.iter("h1")) if t]
    if declared:
        lowered = declared.lower()
        inside = next((h for h in headings if h.lower() in lowered), None)
        return inside or _strip_site(declared)
    return headings[0] if headings else None


def _clean_name(text: str) -> str | None:
    """A byline without its lead-in (``By``, ``Author:``, ``Posted by``...), or None when it is
    not short enough to be names (more than :data:`MAX_BYLINE_WORDS` words)."""
    name = _BYLINE_LEAD.sub("", " ".join(text.split())).strip(" ,;:|-–—")
    return name if name and len(name.split()) <= MAX_BYLINE_WORDS else None


def _byline(root: etree._Element) -> str | None:
    """The first author element's name: ``itemprop="author"`` (its ``itemprop="name"`` part when
    it has one), a ``rel="author"`` link, or an element whose class names an author or a byline."""
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        if "author" in (element.get("itemprop") or "").split():
            part = next((e for e in element.iter() if (e.get("itemprop") or "") == "name"), element)
            name = (part.get("content") or "") if part.tag == "meta" else _text(part)
            if _clean_name(name):
                return _clean_name(name)
        if element.tag == "a" and "author" in (element.get("rel") or "").split() and _clean_name(_text(element)):
            return _clean_name(_text(element))
        classes = (element.get("class") or "").lower()
        if _BYLINE_CLASS.search(classes) and _clean_name(_text(element)):
            return _clean_name(_text(element))
    return None


def find_author(root: etree._Element) -> str | None:
    """The page's author(s), joined by ``", "`` (see the module docstring)."""
    for item in _json_ld(root):
        names = list(dict.fromkeys(_names(item.get("author"))))
        if names:
            return ", ".join(names)
    author = _meta(root, "author", "article:author", "parsely-author", "dc.creator", "sailthru.author")
    if author and not author.startswith("http"):
        return _clean_name(author) or author
    return _byline(root)


def find_date(html: str, url: str | None) -> str | None:
    """The original publication date (``YYYY-MM-DD``) by htmldate, or None when htmldate is not
    installed or finds none. htmldate fetches a string that looks like a URL: such input is
    not a page and gets None here."""
    try:
        import htmldate
    except ImportError:
        return None
    if html.lstrip().startswith("http") and " " not in html.strip():
        return None
    try:
        return htmldate.find_date(html, original_date=True, url=url, outputformat="%Y-%m-%d")
    except Exception:  # htmldate's parser on broken markup: no date rather than a failed page
        return None


def find_language(root: etree._Element, text: str) -> str | None:
    """The language identified from the extracted ``text`` (:func:`boilerbench.language.detect`),
    else the declared one (primary subtag, lowercase): templates often declare ``lang="en"`` on
    pages in other languages, so the text comes first."""
    identified = detect(text)
    if identified:
        return identified
    declared = root.get("lang") or root.get("{http://www.w3.org/XML/1998/namespace}lang")
    declared = declared or _meta(root, "content-language", "og:locale", "language", "dc.language")
    if declared is None:
        equiv = next((m for m in root.iter("meta") if (m.get("http-equiv") or "").lower() == "content-language"), None)
        declared = equiv.get("content") if equiv is not None else None
    if declared and _LANGUAGE.match(declared.strip()):
        return re.split(r"[-_]", declared.strip())[0].lower()
    return None


def find_sitename(root: etree._Element, url: str | None) -> str | None:
    """The site's name (see the module docstring)."""
    name = _meta(root, "og:site_name", "application-name")
    if name:
        return name
    for item in _json_ld(root):
        publisher = item.get("publisher")
        if isinstance(publisher, dict) and isinstance(publisher.get("name"), str) and publisher["name"].strip():
            return publisher["name"].strip()
    host = urlparse(url).hostname if url else None
    return host.removeprefix("www.") if host else None


def find_canonical_url(root: etree._Element, url: str | None) -> str | None:
    """The canonical URL, made absolute against ``url`` (see the module docstring)."""
    link = next((e for e in root.iter("link") if "canonical" in (e.get("rel") or "").lower().split()), None)
    href = (link.get("href") or "").strip() if link is not None else ""
    href = href or (_meta(root, "og:url") or "")
    if not href:
        return url
    return urljoin(url, href) if url else href


def extract_metadata(
    root: etree._Element | None, html: str, url: str | None = None, text: str = "", page_type: str | None = None
) -> dict[str, str | None]:
    """Every field of :data:`FIELDS` for a page parsed as ``root`` from ``html`` (None where not
    found); ``text`` is the extracted text (for the language), ``page_type`` the extractor's
    predicted page type where it gives one."""
    if root is None:
        return dict.fromkeys(FIELDS) | {"language": detect(text) or None, "canonical_url": url, "page_type": page_type}
    return {
        "title": find_title(root),
        "author": find_author(root),
        "date": find_date(html, url),
        "language": find_language(root, text),
        "sitename": find_sitename(root, url),
        "canonical_url": find_canonical_url(root, url),
        "page_type": page_type,
    }
