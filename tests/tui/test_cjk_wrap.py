"""CJK text wraps by character (not at its rare spaces); Latin text as before."""

from __future__ import annotations

from rich.cells import cell_len
from textual.content import Content

from screens.widgets import cjk_wrap


def _lines(text: str, width: int) -> list[str]:
    return [line.plain for line in Content(text).wrap(width)]


def test_japanese_fills_each_line_and_keeps_punctuation_with_its_character() -> None:
    assert cjk_wrap.install()
    text = "これは テストです。日本語の文章はスペースで区切らないので、文字で折り返す。"
    lines = _lines(text, 20)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert all(cell_len(line.rstrip()) <= 20 for line in lines)
    assert cell_len(lines[0].rstrip()) >= 18  # not "これは " and an empty rest of the line
    assert not any(line.startswith(("、", "。")) for line in lines)


def test_korean_breaks_between_syllables_and_latin_between_words() -> None:
    assert cjk_wrap.install()
    lines = _lines("리뷰어 ↔ 수정 루프가 2회 안에 수렴하는 것을 확인했다", 16)
    assert all(cell_len(line.rstrip()) <= 16 for line in lines)
    assert sum(cell_len(line.rstrip()) >= 14 for line in lines[:-1]) == len(lines) - 1
    assert _lines("the quick brown fox jumps", 10) == ["the quick", "brown fox", "jumps"]
