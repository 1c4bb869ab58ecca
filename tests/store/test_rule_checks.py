"""What a rule says checkably, in English and Japanese (issue #46)."""

from __future__ import annotations

import pytest

from store.insight.rule_checks import parse_rule, path_matches, program_of


@pytest.mark.parametrize(
    ("text", "check", "named"),
    [
        ("Run `pnpm lint` before committing", "command", ["pnpm lint"]),
        ("コミット前に `uv run pytest -q` を実行する", "command", ["uv run pytest -q"]),
        ("Run `pnpm test` before pushing", "command", ["pnpm test"]),
        ("Never edit `src/generated/` by hand", "path prohibition", ["src/generated/"]),
        ("package-lock.json を編集しない", "path prohibition", ["package-lock.json"]),
        ("Do not use WebFetch for internal docs", "tool prohibition", ["WebFetch"]),
        ("`git push --force` は使わないこと", "tool prohibition", ["git push --force"]),
        ("Run `make gen` after editing the schema", "not checkable", ["make gen"]),
        ("Read `docs/api.md` first", "not checkable", ["docs/api.md"]),
        ("Keep pull requests small", "not checkable", []),
        ("Read the error before you edit anything", "not checkable", []),
    ],
)
def test_rules(text: str, check: str, named: list[str]) -> None:
    c = parse_rule(text)
    assert c.check == check
    assert [*c.commands, *c.paths, *c.tools] == named


def test_programs_and_paths() -> None:
    assert program_of("cd app && FOO=1 pnpm lint | tee out; sudo /usr/bin/make") == [
        "cd", "pnpm", "tee", "make",
    ]  # fmt: skip
    assert program_of("sudo -u postgres psql -c 'select 1' && sudo -E make; env -i go test") == [
        "psql", "make", "go",
    ]  # fmt: skip
    assert program_of("time -p pytest; FOO=-x sudo -- nice -n 5 make") == ["pytest", "make"]
    assert path_matches("src/generated/", "/home/me/app/src/generated/api.ts")
    assert not path_matches("src/generated/", "/home/me/app/src/generated-old/api.ts")
    assert path_matches("*.lock", "/home/me/app/yarn.lock")
    assert path_matches("package.json", "/home/me/app/package.json")
    assert not path_matches("package.json", "/home/me/app/my-package.json")
