"""A KPT report's claims (cited turns, named files and commands, metrics) checked against its
session's transcript, in the turn numbering its writer used (docs/evidence.md)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Literal

from store.index.transcript_locator import TranscriptLocator
from store.insight.turn_numbering import LABELS, Numbering, NumberingName, by_trace, numberings
from store.ledger import item_key
from store.models.kpt import KptItem, KptMetrics, KptReport
from store.read.counted import counted
from store.read.transcript import (
    CODE_CHANGE_TOOLS,
    COMPACT_SUMMARY,
    Block,
    Transcript,
    read_transcript,
)
from store.workspace import Workspace

EvidenceState = Literal["found", "partial", "not_found", "no_transcript", "unchecked"]

#: States that mean "look before approving" (the ``evidence:missing`` filter).
MISSING_STATES: frozenset[str] = frozenset({"not_found"})

# -- turn references -------------------------------------------------------------------

_NUM = r"\d{1,6}"
_DASH = r"\s*(?:-|–|—|~|〜|～|‐|−|\.\.|to|through|から)\s*"
_SEP = r"\s*(?:,|、|，|/|&|and|or|と|및|および|及び)\s*"
#: a number or range not followed by more digits, ``-02`` or ``:58`` (a date, a time)
_ITEM = rf"{_NUM}(?:{_DASH}{_NUM})?(?!\d|[-/.:]\d)"
_LIST = rf"{_ITEM}(?:{_SEP}{_ITEM})*"
#: ``turn 12``, ``Turns 5-8``, ``ターン3-10``, ``턴 4``, ``T12``, ``turn #3``
_PREFIXED = re.compile(
    rf"(?:(?<![A-Za-z])(?:turns?|Turns?|TURNS?)\s*#?\s*|ターン\s*|턴\s*|(?<![A-Za-z0-9_])T)"
    rf"(?P<list>{_LIST})",
)
#: ``第3ターン``, ``3ターン目``, ``3-5ターン``, ``4턴``, ``4번째 턴``
_SUFFIXED = re.compile(rf"(?:第\s*)?(?P<list>{_LIST})\s*(?:ターン|턴|번째\s*턴)")
_PLAIN = re.compile(rf"^\s*(?:turns?\s*)?(?P<list>{_LIST})\s*$", re.IGNORECASE)
_RANGE = re.compile(rf"(?P<a>{_NUM})(?:{_DASH}(?P<b>{_NUM}))?")
#: A cited range longer than this is taken as its two ends (a typo must not cost memory).
MAX_RANGE = 10_000


@dataclass(frozen=True, slots=True)
class TurnRef:
    """Turns ``first``..``last`` (inclusive) as cited."""

    first: int
    last: int

    def turns(self) -> list[int]:
        if self.last - self.first > MAX_RANGE:
            return [self.first, self.last]
        return list(range(self.first, self.last + 1))


def _normal(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def _refs_in(listing: str) -> list[TurnRef]:
    out = []
    for m in _RANGE.finditer(listing):
        a = int(m.group("a"))
        b = int(m.group("b") or a)
        out.append(TurnRef(min(a, b), max(a, b)))
    return out


def parse_turn_refs(text: str | None, *, plain: bool = False) -> list[TurnRef]:
    """The turns ``text`` cites. ``plain`` (a ``turn_range`` field) also takes a bare
    ``5-8`` or ``12``; in free text a bare number is a count or a date, not a turn."""
    if not text:
        return []
    norm = _normal(text)
    refs: list[TurnRef] = []
    if plain:
        m = _PLAIN.match(norm)
        if m:
            return _refs_in(m.group("list"))
    taken: list[tuple[int, int]] = []
    for pattern in (_PREFIXED, _SUFFIXED):
        for m in pattern.finditer(norm):
            span = m.span()
            if any(s < span[1] and span[0] < e for s, e in taken):
                continue
            taken.append(span)
            refs.extend(_refs_in(m.group("list")))
    return refs


def cited_turns(item: KptItem) -> set[int]:
    """The turns an item's ``evidence`` and ``turn_range`` cite."""
    refs = parse_turn_refs(getattr(item, "evidence", None))
    refs += parse_turn_refs(getattr(item, "turn_range", None), plain=True)
    return {n for r in refs for n in r.turns()}


# -- names: files and commands ---------------------------------------------------------

_BACKQUOTED = re.compile(r"`([^`\n]{2,200})`")
_W = r"[A-Za-z0-9_.@-]"  # file names are matched in ASCII: Japanese prose glues words on
_FILE = re.compile(
    rf"(?<![A-Za-z0-9_@/.~-])((?:~|\.{{1,2}})?/?(?:{_W}+/)*[A-Za-z0-9_@-]{_W}*\.[A-Za-z][A-Za-z0-9]{{0,7}})"
    r"(?![A-Za-z0-9_/])"
)
_PATH = re.compile(rf"(?<![A-Za-z0-9_.~-])((?:~|\.{{1,2}})?/?(?:{_W}+/)+{_W}+)")
#: Commands named in prose: tools whose names are not also English words (``make sure``,
#: ``go to`` and ``node`` are not commands); anything in backquotes counts as well.
_COMMAND = re.compile(
    r"(?<![A-Za-z0-9_./-])((?:npm|npx|pnpm|yarn|pip3?|uv|uvx|poetry|git|pytest|cargo|docker|"
    r"python3?|ruff|mypy|tsc|jest|vitest|eslint|gradle|mvn|kubectl|terraform|brew|"
    r"apt(?:-get)?|curl)(?:[ \t]+[A-Za-z0-9@][A-Za-z0-9_@./:=-]*){1,2})"
)
#: File-like words that are not files (versions, abbreviations).
_NOT_FILES = re.compile(r"^(?:v?\d+(?:\.\d+)+|[eE]\.g|[iI]\.e|[A-Z][A-Za-z]*\.js)$")
#: Suffixes that make ``x.y`` a file name rather than prose (``Node.js`` is not a file).
_FILE_SUFFIXES_TEXT = (
    "py pyi ts tsx js jsx mjs cjs json jsonl yaml yml toml ini cfg conf md markdown txt rst "
    "html css scss go rs java kt rb php c h cc cpp hpp cs swift sh bash zsh sql lock env "
    "xml csv ipynb vue svelte gradle tf proto graphql"
)
_FILE_SUFFIXES = frozenset(_FILE_SUFFIXES_TEXT.split())


@dataclass(frozen=True, slots=True)
class Name:
    """A file or command an item names."""

    kind: Literal["file", "command"]
    text: str


def names_in(text: str | None) -> list[Name]:
    """The files and commands ``text`` names, each once, in order."""
    if not text:
        return []
    norm = _normal(text)
    seen: set[tuple[str, str]] = set()
    out: list[Name] = []

    def add(kind: Literal["file", "command"], value: str) -> None:
        value = value.strip().strip(".,;:()[]{}\"'「」『』")
        if len(value) < 2 or (kind, value.casefold()) in seen:
            return
        seen.add((kind, value.casefold()))
        out.append(Name(kind, value))

    for m in _BACKQUOTED.finditer(norm):
        inner = m.group(1).strip()
        looks_file = _FILE.fullmatch(inner) or _PATH.fullmatch(inner)
        add("file" if looks_file and " " not in inner else "command", inner)
    for m in _FILE.finditer(norm):
        word = m.group(1)
        suffix = word.rsplit(".", 1)[-1].lower()
        if _NOT_FILES.match(word) or ("/" not in word and suffix not in _FILE_SUFFIXES):
            continue
        add("file", word)
    for m in _PATH.finditer(norm):
        word = m.group(1)
        if "://" in norm[max(0, m.start() - 8) : m.start() + 3]:
            continue
        if word.count("/") >= 1 and not word.startswith("/") and "/" not in word.strip("/"):
            continue
        if re.fullmatch(r"[\d/.-]+", word):  # 2026/02/08, 3/5
            continue
        add("file", word)
    for m in _COMMAND.finditer(norm):
        add("command", m.group(1))
    # a path inside a named command is not a second name
    commands = [n.text for n in out if n.kind == "command"]
    return [n for n in out if n.kind == "command" or not any(n.text in c for c in commands)]


def item_names(item: KptItem) -> list[Name]:
    """What an item names, from its description, evidence and root cause."""
    texts = [getattr(item, k, None) for k in ("description", "evidence", "root_cause")]
    return list(
        dict.fromkeys(n for t in texts for n in names_in(t if isinstance(t, str) else None))
    )


# -- looking names up ------------------------------------------------------------------


def _haystack(block: Block) -> str:
    """What a block says, case-folded, Windows paths with ``/`` (``src\\auth.ts``)."""
    return f"{block.name}\n{block.target}\n{block.text}".casefold().replace("\\", "/")


def _mentions(block: Block, name: Name) -> bool:
    if block.kind == "meta" and block.name == COMPACT_SUMMARY:
        return False  # the model's account of earlier turns, not something done in them
    needle = name.text.casefold()
    if name.kind == "file":
        target = block.target.casefold().replace("\\", "/")
        base = needle.rsplit("/", 1)[-1].lstrip("~")
        if target and (target.endswith(needle.lstrip("~./")) or target.endswith("/" + base)):
            return True
        return needle.lstrip("~./") in _haystack(block)
    words = needle.split()
    hay = _haystack(block)
    return needle in hay or (len(words) > 1 and all(w in hay for w in words[:2]))


# -- the check -------------------------------------------------------------------------


@dataclass(slots=True)
class EvidenceCheck:
    """What the transcript says of one item's evidence."""

    state: EvidenceState
    #: the turns the item cites, in order (in :attr:`numbering`)
    cited: list[int] = field(default_factory=list)
    #: cited turns past the session's end
    missing_turns: list[int] = field(default_factory=list)
    #: each name → the turns where it appears (empty: never)
    names: dict[str, list[int]] = field(default_factory=dict)
    #: names that appear, but only outside the cited turns
    outside: list[str] = field(default_factory=list)
    #: findings the fields above do not already say, one sentence each
    notes: list[str] = field(default_factory=list)
    #: the numbering the turns are in (:mod:`store.insight.turn_numbering`)
    numbering: NumberingName = "trace"
    #: the session's turns in that numbering (``None``: no transcript)
    turns: int | None = None
    #: the cited turns as the transcript tab numbers them (one message = one turn)
    view_turns: list[int] = field(default_factory=list)

    @property
    def missing(self) -> bool:
        return self.state in MISSING_STATES

    def as_dict(self) -> dict[str, object]:
        return {
            "state": self.state,
            "numbering": self.numbering,
            "cited_turns": self.cited,
            "missing_turns": self.missing_turns,
            "names": self.names,
            "outside_cited_turns": self.outside,
            "notes": self.notes,
            "message_turns": self.view_turns,
        }


def check_item(
    transcript: Transcript | None,
    section: str,
    item: KptItem,
    numbering: Numbering | None = None,
) -> EvidenceCheck:
    """The evidence state of one item against ``transcript`` (``None``: there is none), its
    turns read in ``numbering`` (the skill's when not given)."""
    cited = cited_turns(item)
    names = item_names(item)
    if transcript is None:
        return EvidenceCheck("no_transcript", sorted(cited))
    nb = numbering or by_trace(transcript)
    count = nb.count
    check = EvidenceCheck("unchecked", sorted(cited), numbering=nb.name, turns=count)
    check.missing_turns = sorted(n for n in cited if n < 1 or n > count)
    present = [n for n in check.cited if 1 <= n <= count]
    check.view_turns = nb.view_turns(present)
    for name in names:
        check.names[name.text] = nb.turns_where(name, partial(_mentions, name=name))
    if section in ("omission", "try") and not cited:
        # an omission names what the session did not do, a try-item what to do next time:
        # that what they name is absent from the session is no finding
        what = "an omission" if section == "omission" else "a try-item (for next time)"
        check.notes.append(f"{what}: what it names need not be in the session")
        return check
    in_cited = {k: [n for n in v if n in cited] for k, v in check.names.items()}
    never = [k for k, v in check.names.items() if not v]
    elsewhere = [k for k, v in check.names.items() if v and not in_cited[k]]
    if present:
        check.outside = elsewhere
    is_error_item = section == "problem" and (getattr(item, "category", "") or "") == "error"
    errors_cited = [n for n in present if any(b.is_error for b in nb.blocks.get(n, ()))]
    if is_error_item and present and not errors_cited:
        check.notes.append("no tool call failed in the cited turns")
    # the state
    # a try-item's files are what to touch next time: never "not found" for them alone
    nothing_there = bool(check.missing_turns and not present) or bool(
        names and len(never) == len(names) and section != "try"
    )
    error_unseen = bool(present and is_error_item and not errors_cited and not names)
    if nothing_there:
        check.state = "not_found"
    elif check.missing_turns or never or (present and elsewhere) or error_unseen:
        check.state = "partial"
    elif present or names:
        check.state = "found"
        if present and not names:
            check.notes.append("the item names no file or command to check in the cited turns")
    else:
        check.notes.append("cites no turn and names no file or command: nothing to check")
    return check


# -- metrics ---------------------------------------------------------------------------


def _same(a: object, b: object) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return {str(x).casefold() for x in a} == {str(x).casefold() for x in b}
    return bool(a == b)


@dataclass(frozen=True, slots=True)
class MetricRow:
    """One metric: the report's value, the transcript's by the writer's definition, and
    another definition the report's value fits when it differs."""

    name: str
    reported: object
    counted: object
    #: how ``counted`` was counted
    definition: str = ""
    #: another definition under which the transcript gives the report's value
    other: str | None = None

    @staticmethod
    def shown(value: object) -> str:
        """A value as a cell: a list (``unique_tools``) by its length, so tables keep their
        columns; none as a dash."""
        if value is None:
            return "—"
        if isinstance(value, list):
            return counted(len(value), "tool")
        return str(value)

    @property
    def differs(self) -> bool:
        if self.reported is None or self.counted is None or self.other is not None:
            return False
        return not _same(self.reported, self.counted)

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "reported": self.reported,
            "counted": self.counted,
            "definition": self.definition,
            "differs": self.differs,
            "fits_other_definition": self.other,
        }


_Counted = tuple[object, str, list[tuple[str, object]]]
#: The definition of a metric only the report's writer knows.
UNCOUNTED = "the writer's own definition: not counted"


def _metric_values(t: Transcript, nb: Numbering) -> dict[str, _Counted]:
    """Metric → (value by ``nb``'s writer's definition, that definition, other definitions
    with their values)."""
    tr = t.trace
    calls = [b for turn in t.turns for b in turn.tool_calls()]
    errors = sum(1 for turn in t.turns for b in turn.blocks if b.is_error and not b.sidechain)
    prompts: tuple[str, object] = ("prompts", t.user_turns)
    turns: list[tuple[str, object]] = [
        ("the skill's turns", tr.turn),
        ("the skill's user + assistant turns", tr.user_turns + tr.assistant_turns),
        ("messages", len(t.turns)),
        prompts,
    ]
    own = {"trace": 0, "message": 2, "prompt": 3}[nb.name]
    out = {"session_duration_turns": (turns[own][1], turns[own][0], turns[:own] + turns[own + 1 :])}
    # per metric the skill's definition, then the main conversation's (another writer's)
    defs: dict[str, list[tuple[str, object]]] = {
        "user_turns": [
            ("the skill's user turns (prompts and tool results)", tr.user_turns),
            prompts,
        ],
        "assistant_turns": [
            ("the skill's assistant turns", tr.assistant_turns),
            ("model responses", t.assistant_turns),
        ],
        "tool_use_count": [
            ("tool calls, sub-agents' too", tr.tool_use_count),
            ("tool calls of the main conversation", len(calls)),
        ],
        "unique_tools": [
            ("tools used, sub-agents' too", sorted(tr.tools)),
            ("tools used in the main conversation", list(dict.fromkeys(b.name for b in calls))),
        ],
        "code_changes_count": [
            ("files written by Write/Edit", tr.code_changes_count),
            (
                "Write/Edit/MultiEdit/NotebookEdit calls",
                sum(1 for b in calls if b.name in CODE_CHANGE_TOOLS),
            ),
        ],
        "error_count": [
            ("failed tool results (the skill's: text results)", tr.error_count),
            ("failed tool results of the main conversation", errors),
        ],
    }
    k = 0 if nb.name == "trace" else 1
    out |= {name: (d[k][1], d[k][0], [d[1 - k]]) for name, d in defs.items()}
    # defined by the skill; another writer's own definition cannot be counted
    for name, value, definition in (
        ("correction_count", tr.correction_count, "the skill's correction phrases"),
        ("backtrack_count", tr.backtrack_count, "files written by Write/Edit twice or more"),
    ):
        out[name] = (value, definition, []) if k == 0 else (None, UNCOUNTED, [])
    return out


def compare_metrics(
    reported: KptMetrics | None, t: Transcript, numbering: Numbering | None = None
) -> list[MetricRow]:
    """Each countable metric, the report's value beside the transcript's."""
    nb = numbering or by_trace(t)
    rows = []
    for name, (value, definition, others) in _metric_values(t, nb).items():
        got = getattr(reported, name, None) if reported else None
        other = None
        if got is not None and not _same(got, value):
            other = next((d for d, v in others if _same(got, v)), None)
        rows.append(MetricRow(name, got, value, definition, other))
    return rows


# -- which numbering the report's writer used ------------------------------------------

#: Fits another numbering needs at least, and at least this many times the skill's.
CLEARLY_BETTER = 2


def _fit(report: KptReport, t: Transcript, nb: Numbering) -> int:
    """How many of the report's turn counts and turn citations fit ``nb``."""
    m = report.metrics
    score = 0
    if m is not None:
        counts = {
            "user_turns": {nb.user_turns},
            "assistant_turns": {nb.assistant_turns},
            "session_duration_turns": {nb.count}
            | ({nb.user_turns + nb.assistant_turns} if nb.name == "trace" else set()),
        }
        score += sum(1 for k, ok in counts.items() if getattr(m, k, None) in ok)
    for section, item in report.items():
        if cited_turns(item) and check_item(t, section, item, nb).state == "found":
            score += 1
    return score


def choose_numbering(report: KptReport, t: Transcript) -> tuple[Numbering, str]:
    """The numbering ``report`` is checked in, and why: the skill's, unless another fits
    clearly better (:data:`CLEARLY_BETTER` times as many of its counts and citations)."""
    options = numberings(t)
    scores = [_fit(report, t, nb) for nb in options]
    best = max(range(1, len(options)), key=lambda i: scores[i])
    if scores[best] >= CLEARLY_BETTER and scores[best] >= CLEARLY_BETTER * scores[0]:
        nb = options[best]
        why = (
            f"the report's turn counts and citations fit {nb.label} ({scores[best]} fit) "
            f"clearly better than the hurikaeri skill's turns ({scores[0]} fit)"
        )
        return nb, why
    return options[0], "the hurikaeri skill's numbering (the default)"


# -- a whole report --------------------------------------------------------------------


@dataclass(slots=True)
class ReportEvidence:
    """A report's evidence: per item keyed as the review keys it, and its metrics."""

    report_id: str | None
    session_id: str | None
    transcript_path: Path | None
    #: the session's turns in :attr:`numbering` (``None``: no transcript)
    turns: int | None
    items: dict[str, tuple[str, KptItem, EvidenceCheck]] = field(default_factory=dict)
    metrics: list[MetricRow] = field(default_factory=list)
    #: the transcript's lines that could not be read
    diagnostics: int = 0
    numbering: NumberingName = "trace"
    #: why that numbering was used
    numbering_why: str = ""

    @property
    def missing(self) -> list[str]:
        return [k for k, (_s, _i, c) in self.items.items() if c.missing]

    @property
    def checked(self) -> bool:
        """Whether there was a transcript to check anything against."""
        return self.transcript_path is not None

    def check(self, item_id: str) -> EvidenceCheck | None:
        """The check of an item by its id (``try-001``) or key."""
        for key, (_s, item, c) in self.items.items():
            if item.id == item_id or key == item_id:
                return c
        return None

    def as_dict(self) -> dict[str, object]:
        return {
            "report": self.report_id,
            "session_id": self.session_id,
            "transcript": str(self.transcript_path) if self.transcript_path else None,
            "checked": self.checked,
            "numbering": {
                "name": self.numbering,
                "label": LABELS[self.numbering],
                "why": self.numbering_why,
            }
            if self.checked
            else None,
            "turns": self.turns,
            "transcript_problems": self.diagnostics,
            "items": {
                key: {"section": section, "id": item.id, **c.as_dict()}
                for key, (section, item, c) in self.items.items()
            },
            "metrics": [m.as_dict() for m in self.metrics],
        }


def check_report(
    report: KptReport, transcript: Transcript | None, *, rkey: str | None = None
) -> ReportEvidence:
    """Every item and the metrics of ``report`` checked, keyed under ``rkey`` (the located
    id of a shared report) or the report's id."""
    nb, why = choose_numbering(report, transcript) if transcript is not None else (None, "")
    out = ReportEvidence(
        report.id,
        report.session_id,
        transcript.path if transcript else None,
        nb.count if nb else None,
        diagnostics=transcript.skipped if transcript else 0,
        numbering=nb.name if nb else "trace",
        numbering_why=why,
    )
    places: dict[str, int] = {}
    for section, item in report.items():
        places[section] = place = places.get(section, 0) + 1
        key = item_key(rkey or report.id, item.id) or f"#{section}:{place}"
        out.items[key] = (section, item, check_item(transcript, section, item, nb))
    if transcript is not None:
        out.metrics = compare_metrics(report.metrics, transcript, nb)
    return out


def check_session(
    ws: Workspace,
    report: KptReport,
    *,
    rkey: str | None = None,
) -> ReportEvidence:
    """:func:`check_report` against the transcript of the report's ``session_id`` (found in
    the workspace's ``transcripts`` location; reads the whole file: call it in a worker)."""
    path = TranscriptLocator(ws).find(report.session_id)
    transcript = read_transcript(path, report.session_id) if path is not None else None
    return check_report(report, transcript, rkey=rkey)
