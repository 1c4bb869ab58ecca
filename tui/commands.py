"""Command-palette provider (Ctrl+P): hurikaeri's commands, matched fuzzily by Textual."""

from __future__ import annotations

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

#: title, help, and the screen it opens by name (the router's) or the action it runs
COMMANDS: list[tuple[str, str, str]] = [
    ("Sessions", "the list of sessions (home)", "sessions"),
    (
        "Search",
        "fuzzy search across every record, with filters (kind:try -kind:lesson …)",
        "search",
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
    ("History", "every change, newest first: diff, undo or redo any of them", "history"),
    ("Problems", "files with errors or warnings", "problems"),
    ("Inbox", "proposals waiting for a decision", "inbox"),
    ("Knowledge base", "skills, patterns, anti-patterns and project memory", "knowledge"),
    ("Skill matching", "which skills would load for a task", "match"),
    ("Lessons", "user and AI lessons: filter, group, edit, archive", "lessons"),
    ("Statistics", "outcomes, problems, review progress, recurring problems", "stats"),
    ("Discussions", "agent replies with their metadata blocks", "discussions"),
    ("Pieces", "TAKT workflows: movement graph, facets, lint", "pieces"),
    ("Targets", "the files agents load: budgets, duplicates, stale rules, secrets", "targets"),
    (
        "Changes",
        "files agents load changed since your last review: who, diff, keep or revert",
        "changes",
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
        if "." not in action:
            action = f"app.open_screen('{action}')"

        async def run() -> None:
            await self.app.run_action(action)

        return run
