"""CJK text wraps by character (not at its rare spaces), never before closing punctuation
or small kana, a combining mark or a Hangul jamo with its character; Latin text as before."""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import App, ComposeResult
from textual.content import Content

from screens.widgets.cjk_wrap import WrappedText, wrap


def _lines(text: str, width: int) -> list[str]:
    return [line.plain for line in wrap(Content(text), width).split("\n")]


def test_japanese_fills_each_line_and_keeps_punctuation_with_its_character() -> None:
    text = "これは テストです。日本語の文章はスペースで区切らないので、文字で折り返す。"
    lines = _lines(text, 20)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert all(cell_len(line) <= 20 for line in lines)
    assert cell_len(lines[0]) >= 18  # not "これは " and an empty rest of the line
    assert not any(line.startswith(("、", "。")) for line in lines)
    # small kana and the long vowel mark stay with the character before them
    assert not any(
        line.startswith(("ッ", "ー")) for line in _lines("データベースのキャッシュ" * 3, 7)
    )


def test_korean_breaks_between_syllables_and_latin_between_words() -> None:
    lines = _lines("리뷰어 ↔ 수정 루프가 2회 안에 수렴하는 것을 확인했다", 16)
    assert all(cell_len(line) <= 16 for line in lines)
    assert all(cell_len(line) >= 14 for line in lines[:-1])
    latin = Content("the quick brown fox jumps")
    assert wrap(latin, 10) is latin  # left to Textual, which wraps it between words
    assert [line.plain for line in latin.wrap(10)] == ["the quick", "brown fox", "jumps"]


def test_combining_marks_and_jamo_stay_with_their_character() -> None:
    voiced = "か\u3099" * 9  # が as か and a combining voiced sound mark
    lines = _lines(voiced, 7)
    assert all(line.startswith("か") and len(line) % 2 == 0 for line in lines)
    assert [cell_len(line) for line in lines] == [6, 6, 6]
    jamo = "\u1100\u1161\u11a8" * 5  # 각 in conjoining jamo: one wide syllable
    assert [cell_len(line) for line in _lines(jamo, 5)] == [4, 4, 2]
    assert all(line.startswith("\u1100") for line in _lines(jamo, 5))
    accented = "漢字 cafe\u0301 漢字漢字"
    assert all("\u0301" not in line[:1] for line in _lines(accented, 6))


def test_wide_latin_words_and_emoji_fold_within_the_width() -> None:
    lines = _lines("見出し https://example.com/a/very/long/path 😀😀😀😀 終わり", 12)
    assert all(cell_len(line) <= 12 for line in lines)
    assert (
        "".join(lines).replace(" ", "")
        == "見出しhttps://example.com/a/very/long/path😀😀😀😀終わり"
    )


class Host(App[None]):
    CSS = "WrappedText { width: 20; }"

    def compose(self) -> ComposeResult:
        yield WrappedText(
            Content("これは テストです。日本語の文章はスペースで区切らないので、文字で折り返す。")
        )


async def test_a_wrapped_text_widget_is_as_high_as_its_lines_and_draws_them() -> None:
    app = Host()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        widget = app.query_one(WrappedText)
        drawn = [widget.render_line(y).text.rstrip() for y in range(widget.size.height)]
        assert widget.size.height == 4
        assert drawn == [
            "これは テストです。",
            "日本語の文章はスペー",
            "スで区切らないので、",
            "文字で折り返す。",
        ]
