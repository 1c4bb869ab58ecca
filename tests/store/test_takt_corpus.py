"""TAKT's real pieces lint cleanly; the deliberately broken one is an error with its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.check.files import lint_file
from store.insight.lint import lint_paths
from store.models import Piece
from store.read.loader import load_file
from tests.conftest import TAKT

BUILTINS = sorted((TAKT / "builtins/en/pieces").glob("*.yaml"))


def test_there_are_38_builtin_pieces() -> None:
    assert len(BUILTINS) == 38


@pytest.mark.parametrize("path", BUILTINS, ids=lambda p: p.stem)
def test_builtin_piece_lints_without_errors(path: Path) -> None:
    diags = lint_file(path, None, path.name)
    assert [d for d in diags if d.severity == "error"] == []
    assert isinstance(load_file(path).doc, Piece)


def test_builtins_resolve_every_facet_by_bare_name() -> None:
    diags = list(lint_paths([TAKT / "builtins"], None))
    assert diags == []


def test_broken_piece_is_an_error_with_its_line() -> None:
    path = TAKT / "e2e/fixtures/pieces/broken.yaml"
    diags = lint_file(path, None, "broken.yaml")
    errors = [d for d in diags if d.severity == "error"]
    assert len(errors) == 1
    assert errors[0].code == "yaml-syntax"
    assert errors[0].line == 3
    assert "mapping values are not allowed" in errors[0].message
