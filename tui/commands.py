"""Command-palette provider (Ctrl+P): hurikaeri's commands, matched fuzzily by Textual."""

from __future__ import annotations

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

COMMANDS: list[tuple[str, str, str]] = [
    ("Sessions", "the list of sessions (home)", "app.open_screen('sessions')"),
    (
        "Search",
        "fuzzy search across every record, with filters (kind:try -kind:lesson …)",
        "app.open_screen('search')",
    ),
    (
        "Next item to review",
        "jump to the next unreviewed item in any session",
        "app.next_unreviewed",
    ),
    (
        "Undo",
        "undo the last change (a decision, an edit, a promotion…): says what first",
        "app.undo",
    ),
    ("Redo", "apply again what was undone last", "app.redo"),
    (
        "History",
        "every change, newest first: diff, undo or redo any of them",
        "app.open_screen('history')",
    ),
    ("Problems", "files with errors or warnings", "app.open_screen('problems')"),
    ("Inbox", "proposals waiting for a decision", "app.open_screen('inbox')"),
    (
        "Knowledge base",
        "skills, patterns, anti-patterns and project memory",
        "app.open_screen('knowledge')",
    ),
    ("Match skills", "which skills would load for a task", "app.open_screen('match')"),
    ("Lessons", "user and AI lessons: filter, group, edit, archive", "app.open_screen('lessons')"),
    (
        "Statistics",
        "outcomes, problems, review progress, recurring problems",
        "app.open_screen('stats')",
    ),
    ("Discussions", "agent replies with their metadata blocks", "app.open_screen('discussions')"),
    ("TAKT pieces", "workflows: movement graph, facets, lint", "app.open_screen('pieces')"),
    (
        "Targets",
        "the files agents load: budgets, duplicates, stale rules, secrets",
        "app.open_screen('targets')",
    ),
    (
        "Changes",
        "files agents load changed since your last review: who, diff, keep or revert",
        "app.open_screen('changes')",
    ),
    ("Reload workspace", "read every file again", "app.reload"),
]


class HurikaeriCommands(Provider):
    async def discover(self) -> Hits:
        for name, help_text, action in COMMANDS:
            yield DiscoveryHit(Content(name), self._runner(action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, action in COMMANDS:
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), self._runner(action), help=help_text)

    def _runner(self, action: str):  # type: ignore[no-untyped-def]
        async def run() -> None:
            await self.app.run_action(action)

        return run
