"""The search query language: words, phrases, filters, negation, errors."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from store.read.isotime import day_number as parse_day
from store.search.query import Filter, QueryError, parse_query


def test_words_are_normalised_and_split() -> None:
    q = parse_query("  JWT  Rotation ＪＷＫＳ ")
    assert q.terms == ("jwt", "rotation", "jwks")
    assert q.free == "jwt rotation jwks"
    assert q.filters == () and q.phrases == ()


def test_cjk_is_split_from_latin_but_the_phrase_keeps_it_whole() -> None:
    q = parse_query("jwt認証")
    assert q.terms == ("jwt", "認証")
    assert q.free == "jwt認証"


def test_quoted_phrases() -> None:
    q = parse_query('"rate  limit" redis “鍵 ローテーション”')
    assert q.phrases == ("rate limit", "鍵 ローテーション")
    assert q.terms == ("rate", "limit", "redis", "鍵", "ローテーション")


def test_filters_with_alternatives_quotes_and_negation() -> None:
    q = parse_query('kind:try,problem -kind:lesson project:"harbor api" tag:JWT -scope:immediate')
    assert Filter("kind", ("try", "problem")) in q.filters
    assert Filter("kind", ("lesson",), negated=True) in q.filters
    assert Filter("project", ("harbor api",)) in q.filters
    assert Filter("tag", ("jwt",)) in q.filters
    assert Filter("scope", ("immediate",), negated=True) in q.filters
    assert q.terms == ()


def test_kind_aliases_and_abbreviations() -> None:
    assert parse_query("kind:kpt").filters[0].values == (
        "report",
        "keep",
        "problem",
        "try",
        "omission",
    )
    assert parse_query("kind:les").filters[0].values == ("lesson",)
    assert parse_query("kind:anti-pattern").filters[0].values == ("anti_pattern",)
    assert parse_query("kind:lessons").filters[0].values == ("lesson",)
    assert set(parse_query("kind:p").filters[0].values) == {
        "problem",
        "pattern",
        "proposal",
        "piece",
    }
    assert parse_query("status:app").filters[0].values == ("approved",)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("jwt foo:bar", "unknown filter 'foo:'"),
        ("kind:nope", "unknown kind 'nope'"),
        ("status:done", "unknown status 'done'"),
        ("after:2026-13", "after: expects a date"),
        ("before:yesterday", "before: expects a date"),
    ],
)
def test_errors_name_what_is_wrong(text: str, fragment: str) -> None:
    with pytest.raises(QueryError) as info:
        parse_query(text)
    assert fragment in info.value.message


def test_what_is_not_a_filter() -> None:
    q = parse_query("12:30 https://example.com kind:")
    assert q.filters == ()  # "kind:" is still being typed
    assert q.terms == ("12:30", "https://example.com")
    assert parse_query('"foo:bar"').phrases == ("foo:bar",)


def test_negated_words_and_phrases() -> None:
    q = parse_query('jwt -flaky -"rate limit"')
    assert q.terms == ("jwt",)
    assert q.excluded == ("flaky", "rate limit")


def test_dates() -> None:
    assert parse_day("2026-01") == 20260101
    assert parse_day("2026-01-31") == 20260131
    assert parse_day("2026-00") is None
    assert parse_day("26-01-01") is None


@given(st.text(alphabet=st.sampled_from("ab1_-. :é日本カ\u3005ー한x"), max_size=12))
def test_ascii_terms_split_as_by_the_whole_pattern(text: str) -> None:
    """ASCII text is tokenised without compiling the CJK patterns (3 ms at import): the
    same tokens, CJK verdicts and terms as the patterns holding the CJK ranges give."""
    from store.search.text import CJK, WORD_CHAR, is_cjk, normalize, split_terms, word_parts

    assert word_parts(text) == re.findall(f"{WORD_CHAR}+|[{CJK}]", text)
    assert is_cjk(text) == (bool(text) and re.sub(f"[{CJK}]", "", text) == "")
    terms: list[str] = []
    for chunk in normalize(text).split():
        if re.search(f"[{CJK}]", chunk) and re.sub(f"[{CJK}]", "", chunk):
            terms += [p for p in re.findall(f"[{CJK}]+|[^{CJK}]+", chunk) if p.strip()]
        else:
            terms.append(chunk)
    assert split_terms(text) == terms
