"""The documentation a newcomer and a maintainer read (issues 42 and 44): a short README whose
links and figures hold, the rest under ``docs/``, no reference to a design file that is not in
the repository, help texts that say what a format is rather than naming a seed."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO

PAGES = sorted(
    [
        REPO / "README.md",
        REPO / "CONTRIBUTING.md",
        *(REPO / "docs").glob("*.md"),
        *(REPO / "benchmarks").glob("*.md"),
    ]
)
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _anchors(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings."""
    heads = re.findall(r"^#+ (.*)$", _FENCE.sub("", text), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


def test_the_readme_is_short() -> None:
    assert len((REPO / "README.md").read_text(encoding="utf-8").splitlines()) <= 250


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_link_leads_to_a_file_and_heading(page: Path) -> None:
    broken = []
    for url in _LINK.findall(_FENCE.sub("", page.read_text(encoding="utf-8"))):
        if url.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = url.partition("#")
        target = (page.parent / path) if path else page
        if not target.exists() or (
            anchor
            and target.is_file()
            and anchor not in _anchors(target.read_text(encoding="utf-8"))
        ):
            broken.append(url)
    assert broken == []


def test_the_docs_cover_each_topic() -> None:
    for name in (
        "review-desk",
        "promotion",
        "search",
        "command-line",
        "configuration",
        "team-review",
        "trust-boundary",
        "scale",
        "architecture",
    ):
        assert (REPO / "docs" / f"{name}.md").is_file(), name


def test_no_code_cites_a_design_file_outside_the_repository() -> None:
    citing = [
        str(p.relative_to(REPO))
        for pkg in ("store", "screens", "tui", "tests", "benchmarks")
        for p in (REPO / pkg).rglob("*.py")
        if p != Path(__file__) and "DESIGN.md" in p.read_text(encoding="utf-8")
    ]
    assert citing == []


def test_the_licence_is_the_projects() -> None:
    with (REPO / "pyproject.toml").open("rb") as fh:
        assert tomllib.load(fh)["project"]["license"] == "MIT"
    assert (REPO / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


def test_the_demo_session_count_in_the_readme_is_the_demos(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    shutil.copytree(REPO / "assets" / "demo", demo)  # stats writes caches beside the files
    r = subprocess.run(
        [sys.executable, "-m", "tui", "stats", "--root", str(demo), "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    sessions = json.loads(r.stdout)["counts"]["sessions"]
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    stated = {int(n) for n in re.findall(r"(\d+) sessions", readme)}
    assert stated == {sessions}


def test_help_says_what_a_format_is_not_which_seed() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "tui", "--help"], cwd=REPO, capture_output=True, text=True
    )
    assert r.returncode == 0
    assert not re.search(r"seed[ -]?0\d\d", r.stdout), r.stdout
