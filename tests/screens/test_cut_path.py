"""A path too wide for its column is cut in the middle and keeps its file name (issue 39,
point 5): five skills under one directory stay five names, in any script."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from textual.content import Content

from screens.widgets.table_rows import fit

SKILLS = "knowledge_base/global/skills/"
PART = st.text(st.sampled_from("abcxyz_-.漢字カ한"), min_size=1, max_size=12)


def test_paths_under_one_directory_stay_apart() -> None:
    names = ["jwt_auth_middleware.yaml", "redis_rate_limiting.yaml", "windows_utf8_stdio.yaml"]
    cut = [fit(Content(SKILLS + n), 32, "left", path=True).plain for n in names]
    assert cut == [
        "knowle…/jwt_auth_middleware.yaml",
        "knowle…/redis_rate_limiting.yaml",
        "knowled…/windows_utf8_stdio.yaml",
    ]
    assert fit(Content(SKILLS + names[0]), 32, "left").plain == SKILLS + "jw…"  # not a path


def test_a_file_name_wider_than_the_column_is_cut_at_its_end() -> None:
    assert fit(Content(SKILLS + "a" * 40), 12, "left", path=True).plain == "…/aaaaaaaaa…"
    assert fit(Content("CLAUDE.md"), 12, "left", path=True).plain == "CLAUDE.md   "


@given(st.lists(PART, min_size=1, max_size=6), st.integers(1, 40))
def test_a_cut_path_fits_its_column_and_ends_as_the_path_does(parts: list[str], width: int) -> None:
    path = "/".join(parts)
    got = fit(Content(path), width, "left", path=True)
    assert got.cell_length == width
    text = got.plain.rstrip(" ")
    if Content(path).cell_length <= width:
        assert text == path.rstrip(" ")
    elif "…/" in text and not text.endswith("…"):  # the name whole after the ellipsis
        assert path.endswith("/" + text.split("…/", 1)[1])
    else:
        assert text.endswith("…")


def test_files_of_one_name_keep_their_folders() -> None:
    """Every skill's file is SKILL.md (takt-sdd's under ``.claude/skills/``): where the
    column has room, the folder stays too, so that the rows stay apart."""
    base = "/home/me/src/takt-sdd/.claude/skills/"
    cut = [
        fit(Content(f"{base}{n}/SKILL.md"), 34, "left", path=True).plain
        for n in ("kiro-impl", "kiro-spec-design")
    ]
    assert cut == ["/home/me/src/t…/kiro-impl/SKILL.md", "/home/m…/kiro-spec-design/SKILL.md"]
