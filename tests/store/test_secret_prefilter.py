"""The secret prefilter (issue #18: ``import-wrapup`` in 0.25 s): a text it calls clean is
one the scanner could not flag. Checked against the installed scanner's own rules: matches
generated from every rule's pattern, as they are, with their letters' cases changed,
base64-encoded, and in the middle of other text, all pass it; and where the scanner flags
a generated text, the prefilter let it through."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from store.check import secret_prefilter, secrets
from store.check.rust_regex import (
    MAX_BACKTRACKING,
    WIDE_FLAGS,
    backtracking,
    normalized,
    parse_python,
    required,
    widened,
)
from store.check.secret_prefilter import Prefilter, build

kingfisher = pytest.importorskip("kingfisher_sdk")


_RULES = kingfisher.Rules(confidence=secrets.CONFIDENCE)
#: every rule of the installed scanner, by id
_PATTERNS = {m["id"]: _RULES.detail(m["id"])["pattern"] for m in _RULES.metadata()}


@pytest.fixture(scope="module")
def rules() -> Any:
    return _RULES


@pytest.fixture(scope="module")
def patterns() -> dict[str, str]:
    return _PATTERNS


@pytest.fixture(scope="module")
def prefilter(patterns: dict[str, str]) -> Prefilter:
    made = build(patterns.values())
    assert made is not None, "a rule the prefilter does not understand: every text is scanned"
    return made


@pytest.fixture(scope="module")
def scanner(rules: Any) -> Any:
    return kingfisher.Scanner(rules, redact=False)


_ASCII = st.characters(codec="ascii")


def _python(pattern: str) -> str | None:
    """The rule's pattern as Python reads it, to generate matches from (``None``: one
    hypothesis cannot generate from)."""
    py = normalized(pattern)
    if py is None:
        return None
    try:
        re.compile(py)
    except re.error:
        return None
    return py


def test_every_rule_is_understood_and_most_by_a_literal(
    patterns: dict[str, str], prefilter: Prefilter
) -> None:
    assert len(patterns) > 400
    assert len(prefilter.literals) > 300 and len(prefilter.always) < 20
    for pattern in prefilter.always:  # (tried on every text: none backtracks much)
        assert backtracking(list(parse_python(pattern))) <= MAX_BACKTRACKING
    for literal_patterns in prefilter.literals.values():
        for p in literal_patterns:
            assert p is None or backtracking(list(parse_python(p))) <= MAX_BACKTRACKING


def test_what_backtracks_is_told_apart() -> None:
    """Repeats that follow each other over shared characters multiply; a character none
    of them takes stands between; nested repeats that vary count without bound."""
    assert backtracking(list(parse_python(r"key\s*:\s*[a-z0-9]{32}"))) <= 1000
    assert backtracking(list(parse_python(r"data:.{0,100}?\s+[\w.-]+:"))) > MAX_BACKTRACKING
    assert backtracking(list(parse_python(r"(?:[a-z]+,)*x"))) == float("inf")
    assert backtracking(list(parse_python(r"(?:-[0-9a-f]{4}){3}"))) == 1
    # a stretch starting with an unbounded repeat would be tried to the end from every
    # place: it is left out (the rest is held by any text the whole is)
    cut = widened(r"BEGIN(?:[a-z]+ )*KEY[\s\S-]{64,}?KEY(?: BLOCK)?-----")
    assert cut is not None and not cut.startswith("(?:[")
    assert re.search(cut, "BEGIN rsa KEY" + "x" * 64 + "KEY BLOCK-----", WIDE_FLAGS)


@pytest.mark.parametrize("rule", sorted(_PATTERNS))
@settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(data=st.data())
def test_a_match_of_every_rule_passes_the_prefilter_however_it_is_written(
    rule: str, prefilter: Prefilter, scanner: Any, data: st.DataObject
) -> None:
    py = _python(_PATTERNS[rule])
    assert py is not None  # (every rule is read: see the test above)
    try:
        # ASCII: a character a byte, as the scanner counts (bytes: see below)
        match = data.draw(
            st.from_regex(re.compile(py, re.ASCII), fullmatch=True, alphabet=_ASCII),
            label="match",
        )
    except (re.error, NotImplementedError):
        assume(False)
    flips = data.draw(st.lists(st.booleans(), min_size=len(match), max_size=len(match)))
    recased = "".join(  # (one character for one: 'ß' is no case of 'SS')
        c.swapcase() if f and len(c.swapcase()) == 1 else c
        for c, f in zip(match, flips, strict=True)
    )
    before = data.draw(st.sampled_from(["", "key: ", "see ", "プロジェクト "]), label="before")
    after = data.draw(st.sampled_from(["", "\n", " done", "'"]), label="after")
    encoded = base64.b64encode(match.encode("utf-8", "surrogatepass")).decode()
    url_safe = base64.urlsafe_b64encode(match.encode("utf-8", "surrogatepass")).decode()
    twice = base64.b64encode(encoded.encode()).decode()
    for text in (
        match,
        recased,
        before + match + after,
        f"blob {encoded} end",
        f"x{url_safe}",
        f"nested {twice}",
    ):
        assert prefilter.may_hold(text), (rule, text)
    for text in (before + match + after, f"blob {encoded} end", recased):
        data_bytes = text.encode("utf-8", "surrogatepass")
        if any(f.visible for f in scanner.scan(data_bytes)):
            assert prefilter.may_hold(text)


def test_ordinary_texts_pass_without_a_scan(prefilter: Prefilter) -> None:
    """The point of it: what agents write day to day needs no rules loaded."""
    for text in (
        "Ran the tests twice; the flaky one waits for the file watcher now.",
        "https://github.com/example/repo/pull/42 fixed the import order",
        "KPT: keep small commits; problem: the cache was rewritten on every start",
        "セッションの振り返り: テストを先に書く",
        '{"title": "retry with backoff", "tags": ["ci", "network"]}',
    ):
        assert not prefilter.may_hold(text), text


def test_known_secrets_and_their_encodings_are_let_through(prefilter: Prefilter) -> None:
    token = "ghp_" + "zjgHWbmPZe9gwWQaq5mcdkU1gJQV3hDKJnQu"
    url = "postgres://admin:" + "Xk9Lq2Rt7Wz1Pq" + "@db.internal:5432/app"
    for secret in (token, url, "AKIA" + "Z" * 16):
        encoded = base64.b64encode(secret.encode()).decode()
        for text in (secret, f"connect with {secret}", f"x = '{encoded}'", secret.upper()):
            assert prefilter.may_hold(text), text


@pytest.mark.parametrize(
    ("rust", "python"),
    [
        (r"\bp8e-(?i)[a-z0-9]{32}", r"\bp8e-[a-z0-9]{32}"),
        (r"pat[[:alnum:]]{14}", r"pat[0-9A-Za-z]{14}"),
        (r"sha256~[\w-]{43}(?:[^\w-]|\z)", r"sha256~[\w-]{43}(?:[^\w-]|\Z)"),
        (r"(?<name>x)\x{41}", r"(?P<name>x)\U00000041"),
        (r"(?i:abc)(?-i:D)", r"(?i:abc)(?-i:D)"),
        (r"(?x) a b # comment", r"(?x) a b "),
    ],
)
def test_rust_syntax_is_read_as_python_reads_it(rust: str, python: str) -> None:
    assert normalized(rust) == python


@pytest.mark.parametrize(
    "rust",
    [
        r"[a-z&&[^aeiou]]",  # a set operation
        r"[[a-z]]",  # a nested class
        r"a(?x)b c",  # verbose from the middle on
        r"a(?=b)",  # a look-around (not Rust's)
        r"\Qa.b\E",  # an escape Python reads otherwise
        r"[a-z",  # not closed
    ],
)
def test_syntax_not_understood_for_certain_is_refused(rust: str) -> None:
    assert normalized(rust) is None or required(rust) is None


def _bytes(text: str) -> str:
    """``text`` as the scanner matches it: its UTF-8 bytes, a character each."""
    return text.encode("utf-8").decode("latin-1")


def test_widening_matches_wherever_the_pattern_does() -> None:
    """Anchors go, case is any, classes are ASCII's as the scanner's (Unicode off), a
    repeat counts bytes, and a negated class refuses no letter (the flags make ``[^a-z]``
    refuse ``A``, which the scanner's case-sensitive class takes)."""
    wide = widened(r"\bscheme://[^:/@\s]{0,8}:[^/@\s]{1,8}@host\b")
    assert wide is not None
    assert re.search(wide, _bytes("SCHEME://u\u2003:p@HOST"), WIDE_FLAGS)
    assert not re.search(wide, _bytes("scheme://u:p/host"), WIDE_FLAGS)
    three = widened(r'key="[^"]{3,5}"')  # one character of three bytes is three
    assert three is not None and re.search(three, _bytes('key="日"'), WIDE_FLAGS)
    cased = widened(r"key[^a-z]{2}")
    assert cased is not None and re.search(cased, _bytes("keyAB"), WIDE_FLAGS)
    assert widened(r"key\p{Greek}+") is None  # the scanner matches bytes: refused
    nested = widened(r"key=(?:[a-z]+,)*[0-9]{8}")  # nested repeats: a stretch without
    assert nested is not None
    assert backtracking(list(parse_python(nested))) <= MAX_BACKTRACKING
    for text in ("key=a,bc,12345678", "KEY=12345678"):  # what the whole matches
        assert re.search(r"key=(?:[a-z]+,)*[0-9]{8}", text, re.IGNORECASE)
        assert re.search(nested, text, WIDE_FLAGS)


def test_what_the_scanner_reads_otherwise_is_let_through(
    prefilter: Prefilter, scanner: Any
) -> None:
    """The scanner reads a text of NULs between letters as UTF-16 or -32, and counts a
    repeat in bytes: both flag what a character-by-character reading would not."""
    token = "ghp_" + "zjgHWbmPZe9gwWQaq5mcdkU1gJQV3hDKJnQu"
    key = "-----BEGIN RSA PRIVATE KEY-----\n" + "日" * 22 + "\n-----END RSA PRIVATE KEY-----"
    for text in (
        "".join(c + "\0" for c in f"token: {token}"),
        "".join("\0" + c for c in token),
        "".join(c + "\0\0\0" for c in token),
        key,
    ):
        assert any(f.visible for f in scanner.scan(text.encode("utf-8")))
        assert prefilter.may_hold(text)
    assert prefilter.may_hold(base64.b64encode(key.encode()).decode())
    assert prefilter.may_hold("x" * (secret_prefilter.MAX_TEXT + 1))
    assert prefilter.may_hold("日" * (secret_prefilter.MAX_TEXT // 3 + 1))  # in bytes


def test_a_rule_with_no_literal_and_no_safe_pattern_means_no_prefilter() -> None:
    assert build([r"ghp_[0-9a-z]{36}", r"(?:[a-z]+)+!"]) is None
    assert build([r"ghp_[0-9a-z]{36}", r"\p{Greek}&&x"]) is not None  # a literal: fine
    assert build([r"ghp_[0-9a-z]{36}", r"[[:nope:]]ghp"]) is None


def test_the_kept_prefilter_round_trips_and_damage_means_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prefilter: Prefilter
) -> None:
    monkeypatch.setattr(secret_prefilter, "cache_file", lambda c, i: tmp_path / f"{c}-{i}.json")
    secret_prefilter.keep(prefilter, "medium")
    assert secret_prefilter.read_cached("medium") == prefilter
    (kept,) = tmp_path.iterdir()
    data = json.loads(kept.read_text(encoding="utf-8"))
    for damaged in (
        {**data, "format": 0},
        {**data, "literals": {}},
        {**data, "literals": {"GHP_": [None]}},  # not case-folded
        {**data, "literals": {"ghp_": []}},
        {**data, "base64_run": "8"},
        [data],
    ):
        kept.write_text(json.dumps(damaged), encoding="utf-8")
        assert secret_prefilter.read_cached("medium") is None
    kept.write_bytes(b"\xff\x00 not json")
    assert secret_prefilter.read_cached("medium") is None
    # a pattern that does not compile finds everything, rather than nothing
    odd = Prefilter({"zzzz": ("(unclosed",)}, ("[",), 8)
    assert odd.may_hold("zzzz") and odd.may_hold("anything at all")


def test_a_scan_needs_no_rules_for_a_clean_text_and_keeps_the_prefilter_it_makes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(secret_prefilter, "cache_file", lambda c, i: tmp_path / f"{c}-{i}.json")
    first = secrets._Detector()
    monkeypatch.setattr(secrets, "_DETECTOR", first)
    assert first.prefilter() is None  # nothing kept yet: the scan loads the rules
    assert secrets.scan_text("an ordinary line") == []
    assert first._scanner is not None and len(list(tmp_path.iterdir())) == 1
    later = secrets._Detector()  # another process, as it were
    monkeypatch.setattr(secrets, "_DETECTOR", later)
    assert secrets.scan_text("an ordinary line") == []
    assert later._scanner is None  # told clean without the rules
    token = "ghp_" + "zjgHWbmPZe9gwWQaq5mcdkU1gJQV3hDKJnQu"
    hits = secrets.scan_text(f"push with {token}")
    assert [h.label for h in hits] == ["github-pat"] and later._scanner is not None


def test_what_newer_rust_or_utf_8_would_read_otherwise_is_refused() -> None:
    """Word boundaries written ``\\<`` or ``\\b{start}`` are no literals; a pattern's own
    non-ASCII letter is its UTF-8 bytes to the scanner: no pattern of such a rule is
    widened (its literal alone decides, or there is no prefilter)."""
    assert build([r"ghp_[0-9a-z]{8}", r"\<ghp_[0-9a-z]{8}"]) is None
    assert build([r"ghp_[0-9a-z]{8}", r"\b{start}ghp_[0-9a-z]{8}"]) is None
    for rule in (r"key=é[0-9]{8}", r"key=\x{e9}[0-9]{8}"):
        assert widened(rule) is None
        made = build([r"ghp_[0-9a-z]{8}", rule])
        assert made is None or made.may_hold("key=é12345678")
