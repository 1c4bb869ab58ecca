"""Promotion finds headings as a Markdown reader does (issue 17): not inside code blocks,
HTML comments or front matter; setext headings, ``C#`` and numbered headings as written."""

from __future__ import annotations

import pytest

from store.write.markdown_edit import MarkdownDoc, MarkdownTarget
from store.write.roundtrip import EditError


def _insert(text: str, section: str, crlf: bool = False) -> str:
    data = text.replace("\n", "\r\n") if crlf else text
    doc = MarkdownDoc.parse(data.encode())
    MarkdownTarget(doc, section).insert("NEW")
    return doc.render().decode().replace("\r\n", "\n")


def test_a_heading_inside_a_four_backtick_fence_is_no_heading() -> None:
    text = "# Top\n\n````md\n# x\n```\n## y\n```\n````\n"
    assert [h.text for h in MarkdownDoc.parse(text.encode()).headings()] == ["Top"]
    out = _insert(text, "## x")
    assert out == text + "\n## x\n\n- NEW\n"  # a new section, the fence untouched


def test_a_heading_inside_an_html_comment_is_no_heading() -> None:
    text = "# Top\n<!--\n## x\n-->\n"
    assert _insert(text, "## x") == text + "\n## x\n\n- NEW\n"


def test_setext_headings_count_and_the_bullet_goes_below_the_underline() -> None:
    text = "Rules\n-----\n\n- a\n\nOther\n=====\n"
    assert _insert(text, "Rules") == "Rules\n-----\n\n- a\n- NEW\n\nOther\n=====\n"
    assert _insert("Rules\n=====\n", "Rules") == "Rules\n=====\n- NEW\n"


def test_a_hash_inside_the_title_is_kept() -> None:
    text = "## Using C#\n- a\n\n## Using C\n- b\n"
    assert _insert(text, "## Using C#") == "## Using C#\n- a\n- NEW\n\n## Using C\n- b\n"


def test_numbered_headings_match_their_bare_title() -> None:
    text = "## 3. 鍵\n\n### 4. 鍵ローテーション\n- a\n"
    assert _insert(text, "### 鍵ローテーション") == text + "- NEW\n"
    # an exact title wins over a numbered one
    text2 = "## 1. Setup\n- a\n## Setup\n- b\n"
    assert _insert(text2, "Setup") == "## 1. Setup\n- a\n## Setup\n- b\n- NEW\n"


def test_front_matter_is_not_searched_and_crlf_is_kept() -> None:
    text = "---\ntitle: x\n# not a heading\n---\n# H\n- a\n"
    doc = MarkdownDoc.parse(text.encode())
    assert [h.text for h in doc.headings()] == ["H"]
    crlf = text.replace("\n", "\r\n").encode()
    doc = MarkdownDoc.parse(crlf)
    MarkdownTarget(doc, "H").insert("NEW")
    assert doc.render() == crlf + b"- NEW\r\n"


@pytest.mark.parametrize("text", ["# T\n\n```sh\nrm -rf x\n", "# T\n<!-- note\n"])
def test_a_new_section_is_never_added_inside_an_unclosed_block(text: str) -> None:
    doc = MarkdownDoc.parse(text.encode())
    with pytest.raises(EditError, match="unclosed"):
        MarkdownTarget(doc, "## New").insert("NEW")
