"""How a transcript's row reads: its cells in the list, its detail below it, whether it
holds a searched text; and cited turns as runs (``3, 5, 23–29``)."""

from __future__ import annotations

from collections.abc import Mapping

from textual.content import Content

from store.read.counted import counted

from .literal import literal
from .table_rows import Cell, Column
from .transcript_rows import TranscriptRow

COLUMNS = [
    Column("mark", "", 1),
    Column("turn", "Turn", 5, align="right"),
    Column("who", "Who", 8),
    Column("text", "", None, min_width=16),
]

#: who speaks, by a row's kind, else by its turn's role
WHO = {
    "tool_use": ("tool", "$accent"),
    "meta": ("note", "$text-muted"),
    "thinking": ("thinking", "$text-muted"),
    "user": ("you", "bold $text-primary"),
    "assistant": ("agent", "$text-secondary"),
}


def _one_line(text: str, limit: int = 400) -> str:
    return " ".join(text[:limit].split())


def row_text(row: TranscriptRow) -> Content:
    """The text cell of a row: a message's first words, a call's tool and target."""
    b = row.block
    if b.kind == "tool_use":
        return Content.assemble(
            Content.styled(b.name, "bold"), " ", literal(_one_line(b.target or b.text))
        )
    if b.kind == "tool_result":
        style = "$error" if b.is_error else "$text-muted"
        head = "✗ error: " if b.is_error else "→ "
        return Content.assemble(Content.styled(head, style), literal(_one_line(b.text), style))
    if b.kind in ("meta", "thinking", "other"):
        return literal(_one_line(b.text), "italic $text-muted")
    return literal(_one_line(b.text))


def _who(row: TranscriptRow) -> Content:
    b = row.block
    if b.sidechain:
        return Content.styled("sub-agent", "$text-muted")
    if b.kind == "tool_result":
        return Content.styled("error" if b.is_error else "result", "$error" if b.is_error else "")
    role = row.turn.role if row.turn is not None else ""
    words, style = WHO.get(b.kind) or WHO.get(role, ("", ""))
    return Content.styled(words, style)


def holds(row: TranscriptRow, needle: str, found: Mapping[int, set[str]]) -> bool:
    """Whether a row holds ``needle``: in what it keeps (preview, tool, target), or — by
    ``found``, the lines of the file that hold it (:func:`scan_for`) — past its preview."""
    b = row.block
    if needle in b.text.casefold() or needle in b.target.casefold() or needle in b.name.casefold():
        return True
    parts = found.get(b.offset)
    if not parts:
        return False
    if b.kind in ("text", "thinking", "meta"):
        return "text" in parts
    return bool(b.tool_id) and b.tool_id in parts


def row_cells(row: TranscriptRow, cited: set[int]) -> tuple[Cell, ...]:
    """A row's cells: the cited mark, its turn's number (on the turn's first row), who
    speaks, and its text."""
    number = row.turn.number if row.turn is not None else None
    is_cited = number is not None and number in cited
    mark = Content.styled("▍", "$accent") if is_cited else Content("")
    turn = (
        Content.styled(str(number), "bold $accent" if is_cited else "bold")
        if row.first and number is not None
        else Content("")
    )
    return (mark, turn, _who(row), row_text(row))


def row_detail(row: TranscriptRow, whole: str | None = None) -> Content:
    """The highlighted row whole: its turn, role, time and line, a call's tool and target,
    and its text (``whole``: read again from the file; else a text cut in memory says
    the rest is being read)."""
    b = row.block
    head: list[Content | str] = []
    if row.turn is not None:
        head += [Content.styled(f"Turn {row.turn.number}", "bold"), f" · {row.turn.role}"]
        if row.turn.timestamp:
            head.append(literal(f" · {row.turn.timestamp}", keep_newlines=False))
    head.append(Content.styled(f" · line {b.line}", "$text-muted"))
    if b.kind in ("tool_use", "tool_result"):
        head += ["\n", Content.styled(b.name, "bold"), " ", literal(b.target, keep_newlines=False)]
    body = literal(b.text if whole is None else whole)
    if b.truncated and whole is None:
        body = Content.assemble(body, Content.styled("\n… (reading the rest)", "$text-muted"))
    return Content.assemble(*head, "\n\n", body)


def status_line(
    *, turns: int, done: bool, problems: int, cited: set[int], found: str, where: str
) -> Content:
    """One line: the turns, what is wrong, what is cited (the turns past the end first),
    what a search ``found``, and the file last (cut with an ellipsis by its CSS)."""
    parts: list[Content | str] = [Content.styled(counted(turns, "turn"), "bold")]
    if not done:
        parts.append(Content.styled(" · reading…", "$warning"))
    if problems:
        lines = counted(problems, "line")
        parts.append(Content.styled(f" · {lines} not read (broken or unknown)", "$warning"))
    past = sorted(n for n in cited if done and n > turns)
    inside = sorted(cited.difference(past))
    if past:
        parts.append(Content.styled(f" · cited {turn_runs(past)} past the end", "$error"))
    if inside:
        parts.append(Content.styled(f" · cited: {turn_runs(inside)}", "$accent"))
    if found:
        parts.append(Content.styled(f" · {found}", "$text-muted"))
    parts += [" · ", literal(where, keep_newlines=False)]
    return Content.assemble(*parts)


def turn_runs(turns: list[int], most: int = 8) -> str:
    """Sorted turn numbers as runs (``3, 5, 23–29``), the first ``most`` runs and ``…``."""
    runs: list[list[int]] = []
    for n in turns:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    shown = [f"{a}–{b}" if b > a else str(a) for a, b in runs[:most]]
    return ", ".join(shown) + (", …" if len(runs) > most else "")
