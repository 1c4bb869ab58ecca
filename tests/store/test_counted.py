"""A count and its noun (store.read.counted): the singular for 1 only."""

from __future__ import annotations

import pytest

from store.read.counted import counted


@pytest.mark.parametrize(
    ("n", "want"), [(0, "0 findings"), (1, "1 finding"), (2, "2 findings"), (1000, "1000 findings")]
)
def test_a_regular_noun(n: int, want: str) -> None:
    assert counted(n, "finding") == want


@pytest.mark.parametrize(
    ("one", "many"), [("match", "matches"), ("summary", "summaries"), ("entry", "entries")]
)
def test_an_irregular_noun_names_its_plural(one: str, many: str) -> None:
    assert [counted(n, one, many) for n in (0, 1, 2)] == [f"0 {many}", f"1 {one}", f"2 {many}"]


def test_a_noun_of_several_words() -> None:
    assert counted(1, "duplicate group") == "1 duplicate group"
    assert counted(3, "rule or skill", "rules and skills") == "3 rules and skills"
