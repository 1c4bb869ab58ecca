"""Cross-checks of a TAKT piece: transitions, loop monitors, reports, facet references,
the movement graph and template variables.

Graph checks (warnings, see :mod:`store.check.piece_graph`): ``unreachable-movement`` (the initial
movement never leads there), ``no-exit`` (a reachable movement with no rule path to
``COMPLETE`` or ``ABORT``), ``aggregate-outside-parallel``, ``aggregate-arity`` and
``unknown-aggregate-condition`` (``all()`` / ``any()`` that cannot match the sub-steps).

Template variables (``unknown-template-variable``, a warning): the instruction texts written
in the piece (``instruction`` / ``instruction_template`` of movements, sub-steps and judges)
and the instruction facet files they reference are scanned for placeholders shaped like
TAKT's variables — ``{name}`` or ``{name:arg}`` with a lower-case identifier — outside
fenced code blocks and inline code, and not part of ``{{…}}`` or ``${…}``. Seed 004's list is
allowed: ``{task} {previous_response} {iteration} {max_movements} {movement_iteration}
{report_dir} {report:NAME} {user_inputs} {cycle_count}``. TAKT leaves anything else as
written, so code examples (``{ value }``, ``{}``) and the fill-in blanks instruction files
give the agent (``{N}``, ``{Summary of changes}``, ``{filepath:line_number}``) are not
flagged: they are capitalised, contain spaces, sit in code, or use a prefix other than
``report``. ``{report:NAME}`` is checked against the piece's output contracts only in the
piece's own texts (``unknown-report``): facet files are shared by pieces that produce
different reports.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

from store.check.piece_graph import aggregate_problems, build_graph
from store.models.piece import SPECIAL_NEXT, Movement, Piece, Rule
from store.read.diagnostics import DiagnosticSink
from store.read.textio import read_text
from store.read.yamlload import YamlDoc

#: Reference field → (section map of the piece, facet directory name).
FACET_KINDS = {
    "persona": ("personas", "personas"),
    "policy": ("policies", "policies"),
    "instruction": ("instructions", "instructions"),
    "knowledge": ("knowledge", "knowledge"),
    "format": ("report_formats", "output-contracts"),
}
_REPORT_REF = re.compile(r"\{report:([^}\s]+)\}")
#: Seed 004's template variables (``{report:NAME}`` is the ``report`` prefix).
TEMPLATE_VARIABLES = (
    "task",
    "previous_response",
    "iteration",
    "max_movements",
    "movement_iteration",
    "report_dir",
    "user_inputs",
    "cycle_count",
)
TEMPLATE_PREFIXES = ("report",)
_PLACEHOLDER = re.compile(r"(?<![{$])\{([a-z][a-z0-9_]*)(?::([^{}\n]*))?\}(?!\})")
_FENCE = re.compile(r"^\s*(```+|~~~+)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")

Loc = tuple[str | int, ...]


def _is_inline(value: str) -> bool:
    """Inline text (instruction written in place) rather than a reference."""
    return "\n" in value or bool(re.search(r"\s", value.strip())) or "{" in value


def report_names(piece: Piece) -> set[str]:
    names: set[str] = set()
    for mv, _loc in _all_movements(piece):
        contracts = mv.output_contracts.report if mv.output_contracts else None
        for entry in contracts or []:
            if "name" in entry and isinstance(entry["name"], str):
                names.add(entry["name"])
            else:  # label form: {Label: file.md}
                names.update(v for v in entry.values() if isinstance(v, str))
    return names


def _all_movements(piece: Piece) -> Iterator[tuple[Movement, Loc]]:
    for i, mv in enumerate(piece.movements or []):
        yield mv, ("movements", i)
        for j, sub in enumerate(mv.parallel or []):
            yield sub, ("movements", i, "parallel", j)


class PieceLinter:
    def __init__(self, piece: Piece, path: Path, doc: YamlDoc, sink: DiagnosticSink) -> None:
        self.piece = piece
        self.dir = path.parent
        self.doc = doc
        self.sink = sink

    def line(self, loc: Sequence[str | int]) -> int | None:
        return self.doc.line_of(loc)

    def run(self) -> None:
        piece = self.piece
        movements = piece.movements or []
        names: dict[str, int] = {}
        for i, mv in enumerate(movements):
            if mv.name is None:
                continue
            if mv.name in names:
                self.sink.error(
                    "duplicate-movement",
                    f"movement '{mv.name}' is defined twice (first as movement {names[mv.name] + 1})",
                    self.line(("movements", i, "name")),
                )
            names.setdefault(mv.name, i)
        if piece.initial_movement is not None and piece.initial_movement not in names:
            self.sink.error(
                "unknown-movement",
                f"initial_movement '{piece.initial_movement}' is not a movement of this piece "
                f"(movements: {', '.join(names) or 'none'})",
                self.line(("initial_movement",)),
            )
        for i, mv in enumerate(movements):
            self.check_rules(mv.rules, ("movements", i), names, top=True)
            for j, sub in enumerate(mv.parallel or []):
                self.check_rules(sub.rules, ("movements", i, "parallel", j), names, top=False)
        for k, mon in enumerate(piece.loop_monitors or []):
            for c, name in enumerate(mon.cycle or []):
                if name not in names:
                    self.sink.error(
                        "unknown-movement",
                        f"loop monitor cycle names '{name}', which is not a movement",
                        self.line(("loop_monitors", k, "cycle", c)),
                    )
            if mon.judge is not None:
                self.check_rules(mon.judge.rules, ("loop_monitors", k, "judge"), names, top=True)
                self.check_refs_of(
                    mon.judge.persona, "persona", ("loop_monitors", k, "judge", "persona")
                )
                self.check_text_or_ref(
                    mon.judge.instruction,
                    "instruction",
                    ("loop_monitors", k, "judge", "instruction"),
                )
                self.check_reports(
                    mon.judge.instruction_template,
                    ("loop_monitors", k, "judge", "instruction_template"),
                )
        self.check_section_maps()
        for mv, loc in _all_movements(piece):
            self.check_movement_refs(mv, loc)
        self.check_graph()
        self.check_templates()

    # -- the movement graph ------------------------------------------------------

    def check_graph(self) -> None:
        graph = build_graph(self.piece)
        start = graph.initial or "?"
        for node in graph.unreachable():
            self.sink.warning(
                "unreachable-movement",
                f"movement '{node.name}' is never reached from the initial movement '{start}' "
                "(no rule or loop-monitor judge leads to it)",
                self.line((*node.loc, "name")),
            )
        for node in graph.no_exit():
            self.sink.warning(
                "no-exit",
                f"from movement '{node.name}' no rule leads to COMPLETE or ABORT: once there, "
                f"the piece only ends at max_movements ({self.piece.max_movements or '?'})",
                self.line((*node.loc, "name")),
            )
        for problem in aggregate_problems(graph):
            self.sink.warning(problem.code, problem.message, self.line(problem.loc))

    # -- template variables ------------------------------------------------------

    def check_templates(self) -> None:
        seen_files: set[Path] = set()
        for text, loc, facet in instruction_texts(self.piece, self.dir):
            if facet is not None:
                if facet in seen_files:
                    continue
                seen_files.add(facet)
            for var, line in unknown_placeholders(text):
                where = ""
                at = self.text_line(loc, line)
                if facet is not None:
                    where = f"instruction file {_shown(facet, self.dir)} line {line}: "
                    at = self.line(loc)
                self.sink.warning(
                    "unknown-template-variable",
                    f"{where}{var} is not a TAKT template variable{_suggestion(var)}; TAKT "
                    "leaves it as written (variables: "
                    + " ".join(f"{{{v}}}" for v in TEMPLATE_VARIABLES)
                    + " {report:NAME})",
                    at,
                )

    def text_line(self, loc: Loc, n: int) -> int | None:
        """The file line of line ``n`` of the text at ``loc`` (exact for block scalars)."""
        node = self.doc.root
        for part in loc:
            if isinstance(node, MappingNode):
                node = next(
                    (v for k, v in node.value if isinstance(k, ScalarNode) and k.value == part),
                    None,
                )
            elif isinstance(node, SequenceNode) and isinstance(part, int):
                node = node.value[part] if 0 <= part < len(node.value) else None
            else:
                node = None
            if node is None:
                return self.line(loc)
        if isinstance(node, ScalarNode):
            first: int = node.start_mark.line + 1
            return first + n if node.style in ("|", ">") else first + n - 1
        return self.line(loc)

    def check_rules(
        self, rules: list[Rule] | None, loc: Loc, names: dict[str, int], *, top: bool
    ) -> None:
        for r, rule in enumerate(rules or []):
            here = (*loc, "rules", r)
            if rule.next is None:
                if top:
                    self.sink.error(
                        "missing-next", "this rule has no 'next' movement", self.line(here)
                    )
                continue
            if not top:
                self.sink.warning(
                    "ignored-next",
                    f"'next: {rule.next}' on a parallel sub-step is ignored; the parent's rules decide",
                    self.line((*here, "next")),
                )
                continue
            if rule.next not in names and rule.next not in SPECIAL_NEXT:
                self.sink.error(
                    "unknown-movement",
                    f"rule goes to '{rule.next}', which is not a movement, COMPLETE or ABORT",
                    self.line((*here, "next")),
                )

    def check_section_maps(self) -> None:
        for section, _kind in FACET_KINDS.values():
            mapping = getattr(self.piece, section) or {}
            for key, rel in mapping.items():
                if not (self.dir / rel).is_file():
                    self.sink.warning(
                        "facet-missing",
                        f"{section}.{key}: file {rel} not found next to the piece",
                        self.line((section, key)),
                    )

    def check_movement_refs(self, mv: Movement, loc: Loc) -> None:
        self.check_refs_of(mv.persona, "persona", (*loc, "persona"))
        self.check_refs_of(mv.policy, "policy", (*loc, "policy"))
        self.check_refs_of(mv.knowledge, "knowledge", (*loc, "knowledge"))
        self.check_text_or_ref(mv.instruction, "instruction", (*loc, "instruction"))
        self.check_text_or_ref(
            mv.instruction_template, "instruction", (*loc, "instruction_template")
        )
        if mv.team_leader is not None:
            self.check_refs_of(
                mv.team_leader.part_persona, "persona", (*loc, "team_leader", "part_persona")
            )
        contracts = mv.output_contracts.report if mv.output_contracts else None
        for r, entry in enumerate(contracts or []):
            fmt = entry.get("format")
            if isinstance(fmt, str):
                self.check_text_or_ref(
                    fmt, "format", (*loc, "output_contracts", "report", r, "format")
                )

    def check_text_or_ref(self, value: str | None, field: str, loc: Loc) -> None:
        if value is None:
            return
        if _is_inline(value):
            self.check_reports(value, loc)
        else:
            self.check_ref(value, field, loc)

    def check_refs_of(self, value: str | list[str] | None, field: str, loc: Loc) -> None:
        if value is None:
            return
        values = [value] if isinstance(value, str) else value
        for i, v in enumerate(values):
            self.check_ref(v, field, loc if isinstance(value, str) else (*loc, i))

    def check_ref(self, name: str, field: str, loc: Loc) -> None:
        if self.resolve(name, field) is None:
            section, kind = FACET_KINDS[field]
            if "/" in name or name.endswith(".md"):
                self.sink.warning(
                    "unresolved-facet",
                    f"{field} file '{name}' not found (resolved against the piece's directory: "
                    f"{(self.dir / name).resolve()})",
                    self.line(loc),
                )
                return
            self.sink.warning(
                "unresolved-facet",
                f"{field} '{name}' is not in the piece's {section} map, not a file next to the "
                f"piece, and not found as ../facets/{kind}/{name}.md",
                self.line(loc),
            )

    def resolve(self, name: str, field: str) -> Path | None:
        """Where a facet reference leads: section map, path beside the piece, facet dirs."""
        return resolve_facet(self.piece, self.dir, name, field)[0]

    def check_reports(self, text: str | None, loc: Loc) -> None:
        if not text:
            return
        declared = report_names(self.piece)
        for m in _REPORT_REF.finditer(text):
            if m.group(1) not in declared:
                self.sink.error(
                    "unknown-report",
                    f"{{report:{m.group(1)}}} names no output contract of this piece "
                    f"(declared: {', '.join(sorted(declared)) or 'none'})",
                    self.line(loc),
                )


# -- facets ------------------------------------------------------------------------


def resolve_facet(piece: Piece, piece_dir: Path, name: str, field: str) -> tuple[Path | None, str]:
    """Where a facet reference leads, and how it was found.

    In TAKT's order: the piece's section map, a path beside the piece, then the facet
    directories (``../facets/<kind>/NAME.md`` and ``facets/<kind>/NAME.md``)."""
    section, kind = FACET_KINDS[field]
    mapping = getattr(piece, section) or {}
    if name in mapping:
        p = piece_dir / mapping[name]
        return (p if p.is_file() else None), f"{section} map"
    if "/" in name or name.endswith(".md"):
        p = piece_dir / name
        return (p if p.is_file() else None), "path beside the piece"
    for base in (piece_dir.parent / "facets", piece_dir / "facets"):
        p = base / kind / f"{name}.md"
        if p.is_file():
            return p, "facet directory"
    return None, "facet directory"


@dataclass(slots=True)
class FacetRef:
    """One facet a piece refers to, resolved (or not), or an instruction written in place."""

    owner: str
    """Who refers to it: a movement, ``movement / sub-step`` or ``loop monitor N judge``."""
    field: str
    """``persona``, ``policy``, ``knowledge``, ``instruction`` or ``format``."""
    name: str
    loc: Loc
    path: Path | None = None
    how: str = ""
    inline: str | None = None

    @property
    def kind(self) -> str:
        return FACET_KINDS[self.field][1]


def facet_references(piece: Piece, piece_path: Path) -> list[FacetRef]:
    """Every facet reference of the piece, in order, each resolved."""
    base = piece_path.parent
    out: list[FacetRef] = []

    def add(owner: str, field: str, value: str | list[str] | None, loc: Loc) -> None:
        if value is None:
            return
        values = [value] if isinstance(value, str) else list(value)
        for i, v in enumerate(values):
            if not isinstance(v, str):
                continue
            here = loc if isinstance(value, str) else (*loc, i)
            if field in ("instruction", "format") and _is_inline(v):
                out.append(FacetRef(owner, field, "(inline)", here, None, "inline", v))
                continue
            path, how = resolve_facet(piece, base, v, field)
            out.append(FacetRef(owner, field, v, here, path, how))

    movements = piece.movements or []
    for m, loc in _all_movements(piece):
        owner = m.name or "?"
        if len(loc) > 2:  # a sub-step: name it with its parent
            parent = movements[int(loc[1])]
            owner = f"{parent.name or '?'} / {owner}"
        add(owner, "persona", m.persona, (*loc, "persona"))
        if m.team_leader is not None:
            part: Loc = (*loc, "team_leader", "part_persona")
            add(owner, "persona", m.team_leader.part_persona, part)
        add(owner, "policy", m.policy, (*loc, "policy"))
        add(owner, "knowledge", m.knowledge, (*loc, "knowledge"))
        add(owner, "instruction", m.instruction, (*loc, "instruction"))
        add(owner, "instruction", m.instruction_template, (*loc, "instruction_template"))
        contracts = m.output_contracts.report if m.output_contracts else None
        for r, entry in enumerate(contracts or []):
            fmt = entry.get("format")
            if isinstance(fmt, str):
                add(owner, "format", fmt, (*loc, "output_contracts", "report", r, "format"))
    for k, mon in enumerate(piece.loop_monitors or []):
        if mon.judge is None:
            continue
        owner = f"loop monitor {k + 1} judge"
        judge: Loc = ("loop_monitors", k, "judge")
        add(owner, "persona", mon.judge.persona, (*judge, "persona"))
        add(owner, "instruction", mon.judge.instruction, (*judge, "instruction"))
        add(owner, "instruction", mon.judge.instruction_template, (*judge, "instruction_template"))
    return out


# -- template variables ------------------------------------------------------------


def instruction_texts(piece: Piece, piece_dir: Path) -> Iterator[tuple[str, Loc, Path | None]]:
    """Instruction texts of the piece: ``(text, loc in the piece, facet file or None)``."""
    for ref in facet_references(piece, piece_dir / "piece.yaml"):
        if ref.field != "instruction":
            continue
        if ref.inline is not None:
            yield ref.inline, ref.loc, None
        elif ref.path is not None:
            raw = read_text(ref.path, DiagnosticSink(str(ref.path)))
            if raw.text is not None:
                yield raw.text, ref.loc, ref.path


def prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """Lines of ``text`` outside fenced code blocks, with inline code removed (1-based)."""
    fence: str | None = None
    for n, line in enumerate(text.splitlines(), 1):
        m = _FENCE.match(line)
        if m:
            mark = m.group(1)[0] * 3
            if fence is None:
                fence = mark
            elif mark == fence:
                fence = None
            continue
        if fence is None:
            yield n, _CODE_SPAN.sub("", line)


def unknown_placeholders(text: str) -> Iterator[tuple[str, int]]:
    """Placeholders shaped like TAKT variables that are not in seed 004's list."""
    for n, line in prose_lines(text):
        for m in _PLACEHOLDER.finditer(line):
            name, arg = m.group(1), m.group(2)
            if arg is not None:
                if name in TEMPLATE_PREFIXES or not _close(name, TEMPLATE_PREFIXES):
                    continue
            elif name in TEMPLATE_VARIABLES:
                continue
            yield m.group(0), n


def _close(name: str, choices: Sequence[str]) -> list[str]:
    return difflib.get_close_matches(name, choices, n=1, cutoff=0.75)


def _suggestion(var: str) -> str:
    inner = var.strip("{}")
    name, _, arg = inner.partition(":")
    if arg:
        return f" (did you mean {{report:{arg}}}?)"
    near = _close(name, TEMPLATE_VARIABLES)
    return f" (did you mean {{{near[0]}}}?)" if near else ""


def _shown(path: Path, base: Path) -> str:
    try:
        return str(path.resolve().relative_to(base.resolve().parent))
    except ValueError:
        return str(path)
