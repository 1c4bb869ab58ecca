"""Cross-checks of a TAKT piece or workflow, each format in its own words. Only placeholders
shaped like TAKT's (``{name}``, ``{name:arg}``, outside code) are template variables: TAKT
leaves any other as written (``{N}`` is a blank for the agent, not a mistake)."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ruamel.yaml.nodes import ScalarNode

from store.check.piece_graph import aggregate_problems, build_graph, ref_text
from store.check.takt_facets import FACET_KINDS, Resolution, resolve_reference
from store.check.takt_format import (
    FIRST_WORKFLOWS,
    PIECE_VARIABLES,
    RENAMED_VARIABLES,
    WORKFLOW_VARIABLES,
    TaktFormat,
    takt_format,
)
from store.models.piece import (
    SPECIAL_NEXT,
    WORKFLOW_SPECIAL_NEXT,
    Loc,
    Movement,
    ParamRef,
    Piece,
    Ref,
    RefOrList,
    Rule,
)
from store.read.diagnostics import Diagnostic, DiagnosticSink
from store.read.markers import dotted
from store.read.metadata_block import outside_code
from store.read.takt_layout import Source
from store.read.textio import read_text
from store.read.yamlload import YamlDoc

_REPORT_REF = re.compile(r"\{report:([^}\s]+)\}")
_PLACEHOLDER = re.compile(r"(?<![{$])\{([a-z][a-z0-9_]*)(?::([^{}\n]*))?\}(?!\})")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
#: braces no variable is written in (``{分岐}``, ``{N}``, ``{✅ / ❌: reason}``)
_FORM_FIELD = re.compile(r"\{(?![a-z][a-z0-9_]*(?::[^{}\n]*)?\})[^{}\n]+\}")
_PIECE_ONLY = set(PIECE_VARIABLES) - set(WORKFLOW_VARIABLES)  # {max_movements}, …
_WORKFLOW_ONLY = set(WORKFLOW_VARIABLES) - set(PIECE_VARIABLES)  # {max_steps}, …


def _is_inline(value: str) -> bool:
    """An instruction written in place rather than a reference."""
    return "\n" in value or bool(re.search(r"\s", value.strip())) or "{" in value


def report_names(piece: Piece) -> set[str]:
    names: set[str] = set()
    for mv, _loc in _all_movements(piece):
        contracts = mv.output_contracts.report if mv.output_contracts else None
        early = mv.report  # before TAKT 0.8: a file name, {name, format} or [{Label: file}]
        if isinstance(early, str):
            names.add(early)
        elif isinstance(early, dict):
            contracts = [*(contracts or []), early]
        elif isinstance(early, list):
            contracts = [*(contracts or []), *(e for e in early if isinstance(e, dict))]
        for entry in contracts or []:
            if "name" in entry and isinstance(entry["name"], str):
                names.add(entry["name"])
            else:  # label form: {Label: file.md}
                names.update(v for v in entry.values() if isinstance(v, str))
    return names


def _all_movements(piece: Piece) -> Iterator[tuple[Movement, Loc]]:
    """Movements and sub-steps, located under the file's own key."""
    key = takt_format(piece).key("movements")
    for i, mv in enumerate(piece.movements or []):
        yield mv, (key, i)
        for sub, at in mv.substeps():
            yield sub, (key, i, *at)


class PieceLinter:
    def __init__(self, piece: Piece, path: Path, doc: YamlDoc, sink: DiagnosticSink) -> None:
        self.piece = piece
        self.path = path
        self.dir = path.parent
        self.doc = doc
        self.sink = sink
        self.format: TaktFormat = takt_format(piece)
        self.noun = self.format.noun

    def line(self, loc: Sequence[str | int]) -> int | None:
        return self.doc.line_of(self.format.loc(tuple(loc)))

    def run(self) -> None:
        piece = self.piece
        self.check_format()
        movements = piece.movements or []
        names: dict[str, int] = {}
        noun = self.noun
        for i, mv in enumerate(movements):
            if mv.name is None:
                if mv.uses is None:  # a fragment's step takes the fragment's name
                    self.sink.error(
                        "missing-field",
                        f"required field 'name' is missing (expected a unique {noun} name)",
                        self.line(("movements", i)),
                    )
                continue
            if mv.name in names:
                self.sink.error(
                    "duplicate-movement",
                    f"{noun} '{mv.name}' is defined twice (first as {noun} {names[mv.name] + 1})",
                    self.line(("movements", i, "name")),
                )
            names.setdefault(mv.name, i)
        if piece.initial_movement is not None and piece.initial_movement not in names:
            key = self.format.key("initial_movement")
            self.sink.error(
                "unknown-movement",
                f"{key} '{piece.initial_movement}' is not a {noun} of this "
                f"{self.format.name} ({self.format.key('movements')}: {', '.join(names) or 'none'})",
                self.line(("initial_movement",)),
            )
        for i, mv in enumerate(movements):
            self.check_rules(mv.own_rules(), ("movements", i), names, top=True)
            for sub, at in mv.substeps():
                if sub.name is None and sub.uses is None:
                    self.sink.error(
                        "missing-field",
                        "required field 'name' is missing (expected a sub-step name)",
                        self.line(("movements", i, *at)),
                    )
                self.check_rules(sub.own_rules(), ("movements", i, *at), names, top=False)
        refs = facet_references(piece, self.path)
        for k, mon in enumerate(piece.loop_monitors or []):
            for c, name in enumerate(mon.cycle or []):
                if name not in names:
                    self.sink.error(
                        "unknown-movement",
                        f"loop monitor cycle names '{name}', which is not a {noun}",
                        self.line(("loop_monitors", k, "cycle", c)),
                    )
            if mon.judge is not None:
                judge_rules: list[tuple[Rule, Loc]] = [
                    (r, ("rules", n)) for n, r in enumerate(mon.judge.rules or [])
                ]
                self.check_rules(judge_rules, ("loop_monitors", k, "judge"), names, top=True)
                self.check_facets(r for r in refs if r.loc[:2] == ("loop_monitors", k))
        self.check_section_maps()
        self.check_facets(r for r in refs if r.loc[0] != "loop_monitors")
        self.check_graph()
        self.check_templates(refs)

    # -- the format ----------------------------------------------------------------

    def check_format(self) -> None:
        fmt, piece = self.format, self.piece
        if fmt.name == "mixed":
            other = fmt.workflow_keys if fmt.flow_key == "movements" else fmt.piece_keys
            self.sink.error(
                "mixed-takt-format",
                "this file mixes TAKT's piece format (TAKT ≤ 0.33: "
                + ", ".join(dotted(k) for k in fmt.piece_keys)
                + ") with the workflow format (TAKT ≥ 0.34: "
                + ", ".join(dotted(k) for k in fmt.workflow_keys)
                + "); TAKT ≤ 0.33 ignores the workflow keys, 0.34–0.35 accept both only where "
                "they agree (and reject instruction_template), 0.36 and later reject the piece "
                f"keys. Write one format; the graph is drawn from '{fmt.flow_key}'",
                self.doc.line_of(other[0]),
            )
        required: list[tuple[str, str]] = []
        if piece.movements is None:
            required.append(
                ("steps", "a list of steps")
                if fmt.name == "workflow"
                else ("movements", "a list of movements")
            )
        if fmt.name == "piece" and piece.max_movements is None:
            required.append(("max_movements", "the iteration limit"))
        for key, what in required:  # as the model's markers word it
            self.sink.error(
                "missing-field",
                f"required field '{key}' is missing (expected {what})",
                self.doc.line_of(()),
            )

    # -- the movement graph ------------------------------------------------------

    def check_graph(self) -> None:
        graph = build_graph(self.piece)
        start = graph.initial or "?"
        noun, fmt = self.noun, self.format
        for node in graph.unreachable():
            self.sink.warning(
                "unreachable-movement",
                f"{noun} '{node.name}' is never reached from the initial {noun} '{start}' "
                "(no rule or loop-monitor judge leads to it)",
                self.line((*node.loc, "name")),
            )
        for node in graph.no_exit():
            limit = self.piece.max_movements or ("10, the default" if fmt.is_workflow else "?")
            self.sink.warning(
                "no-exit",
                f"from {noun} '{node.name}' no rule leads to COMPLETE or ABORT: once there, "
                f"the {fmt.name if fmt.name != 'mixed' else 'piece'} only ends at "
                f"{fmt.key('max_movements')} ({limit})",
                self.line((*node.loc, "name")),
            )
        for problem in aggregate_problems(graph):
            self.sink.warning(problem.code, problem.message, self.line(problem.loc))

    # -- template variables ------------------------------------------------------

    def check_templates(self, refs: list[FacetRef]) -> None:
        seen_files: set[Path] = set()
        fmt = self.format
        variables, prefixes = fmt.variables, fmt.prefixes
        texts = list(instruction_texts(refs))
        if fmt.versions == FIRST_WORKFLOWS:  # for 0.34–0.35 when it uses only their names
            used = {m.group(1) for text, _, _ in texts for m in _PLACEHOLDER.finditer(text)}
            if used & _PIECE_ONLY and not used & _WORKFLOW_ONLY:
                variables = PIECE_VARIABLES
        listed = (
            " ".join(f"{{{v}}}" for v in variables)
            + " "
            + " ".join(f"{{{p}:NAME}}" for p in prefixes)
        )
        for text, loc, facet in texts:
            if facet is not None:
                if facet in seen_files:
                    continue
                seen_files.add(facet)
            for var, line in unknown_placeholders(text, variables, prefixes):
                message = (
                    f"{var} is not a TAKT template variable"
                    f"{_suggestion(var, variables, fmt)}; TAKT leaves it as written "
                    f"(a {fmt.name if fmt.name != 'mixed' else 'piece or workflow'}'s "
                    f"variables: {listed})"
                )
                if facet is None:
                    where, at = self.sink.path, self.text_line(loc, line)
                else:  # on the facet file itself: said once however many pieces use the facet
                    where, at = self.shown(facet), line
                self.sink.items.append(
                    Diagnostic(where, at, "warning", "unknown-template-variable", message)
                )

    def shown(self, path: Path) -> str:
        """``path`` shown relative to where the piece's own path is."""
        here = self.sink.path
        base = here[: -len(self.path.name)] if here.endswith(self.path.name) else ""
        return os.path.normpath(os.path.join(base, os.path.relpath(path, self.path.parent)))

    def text_line(self, loc: Loc, n: int) -> int | None:
        """The file line of line ``n`` of the text at ``loc`` (exact for block scalars)."""
        node = self.doc.node_at(self.format.loc(loc))
        if isinstance(node, ScalarNode):
            first: int = node.start_mark.line + 1
            return first + n if node.style in ("|", ">") else first + n - 1
        return self.line(loc)

    def check_rules(
        self,
        rules: list[tuple[Rule, Loc]],
        loc: Loc,
        names: dict[str, int],
        *,
        top: bool,
    ) -> None:
        fmt = self.format
        specials: tuple[str, ...] = SPECIAL_NEXT
        if fmt.is_workflow and not fmt.early:
            specials = (*SPECIAL_NEXT, *WORKFLOW_SPECIAL_NEXT)
        for rule, at in rules:
            here = (*loc, *at)
            may_use_when = self.format.is_workflow and loc[0] != "loop_monitors"
            if rule.condition is None and (rule.when is None or not may_use_when):
                when = ""
                if rule.when is not None:
                    when = (
                        " ('when' is for a workflow step's rules, TAKT ≥ 0.36)"
                        if loc[0] != "loop_monitors"
                        else " (a loop monitor judge's rules take no 'when')"
                    )
                self.sink.error(
                    "missing-field",
                    f"required field '{dotted(self.format.loc((*here, 'condition')))}' is "
                    f"missing (expected the condition text){when}",
                    self.line(here),
                )
            if rule.next is None:
                if top and rule.return_ is None:
                    self.sink.error(
                        "missing-next",
                        f"this rule has no 'next' {self.noun}"
                        + (" nor 'return' label" if fmt.is_workflow and not fmt.early else ""),
                        self.line(here),
                    )
                continue
            if not top:
                self.sink.warning(
                    "ignored-next",
                    f"'next: {rule.next}' on a parallel sub-step is ignored; the parent's rules decide",
                    self.line((*here, "next")),
                )
                continue
            if rule.next not in names and rule.next not in specials:
                self.sink.error(
                    "unknown-movement",
                    f"rule goes to '{rule.next}', which is not a {self.noun}, "
                    + ", ".join(specials[:-1])
                    + f" or {specials[-1]}",
                    self.line((*here, "next")),
                )

    def check_section_maps(self) -> None:
        for section, _kind in FACET_KINDS.values():
            mapping = getattr(self.piece, section) or {}
            for key, rel in mapping.items():
                # text with spaces is the facet itself, written in place (TAKT reads a file
                # only for a value ending in .md, and takes any other as the content)
                text = str(rel)
                if (len(text.split()) == 1 or text.endswith(".md")) and not (
                    self.dir / text
                ).is_file():
                    self.sink.warning(
                        "facet-missing",
                        f"{section}.{key}: file {rel} not found next to the {self.format.name}",
                        self.line((section, key)),
                    )

    def check_facets(self, refs: Iterable[FacetRef]) -> None:
        """Unresolved references, and the ``{report:…}`` of instructions written in place."""
        for ref in refs:
            if ref.inline is not None:
                self.check_reports(ref.inline, ref.loc)
                continue
            judge_template = ref.loc[0] == "loop_monitors" and ref.loc[-1] == "instruction_template"
            # a parameter is the caller's to bind; a mapped file that is missing: facet-missing
            if ref.source is not None or ref.mapped or ref.how == "parameter" or judge_template:
                continue
            if ref.how == "path beside the piece":
                base = (
                    "home directory"
                    if ref.name.startswith("~")
                    else f"{self.format.name}'s directory"
                )
                self.sink.warning(
                    "unresolved-facet",
                    f"{ref.field} file '{ref.name}' not found (resolved against the "
                    f"{base}: {ref.looked_in[0]})",
                    self.line(ref.loc),
                )
                continue
            then = (
                "TAKT would use the name itself as the text"
                if ref.field != "persona"
                else "TAKT would run it with no persona file"
            )
            self.sink.warning(
                "unresolved-facet",
                f"{ref.field} '{ref.name}' resolves nowhere (looked in: "
                f"{'; '.join(ref.looked_in)}); {then}",
                self.line(ref.loc),
            )

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


@dataclass(slots=True)
class FacetRef:
    """One facet a piece refers to, resolved (or not), or an instruction written in place."""

    owner: str  # a movement, ``movement / sub-step`` or ``loop monitor N judge``
    field: str  # persona, policy, knowledge, instruction or format
    name: str
    loc: Loc
    path: Path | None = None
    how: str = ""
    inline: str | None = None
    source: Source | None = None  # the layer it resolved in (None: inline, or nowhere)
    looked_in: tuple[str, ...] = ()  # where it was looked for, when it resolved nowhere
    mapped: bool = False  # a key of the piece's section map (whose file may be missing)


def facet_references(piece: Piece, piece_path: Path) -> list[FacetRef]:
    """Every facet reference of the piece, in order, each resolved."""
    base = piece_path.parent
    out: list[FacetRef] = []

    def add(owner: str, field: str, value: RefOrList | None, loc: Loc) -> None:
        if value is None:
            return
        values: list[Ref] = list(value) if isinstance(value, list) else [value]
        for i, v in enumerate(values):
            here = loc if not isinstance(value, list) else (*loc, i)
            if isinstance(v, ParamRef):  # bound by the caller (args / with) or its default
                out.append(FacetRef(owner, field, ref_text(v), here, None, "parameter", None))
                continue
            if not isinstance(v, str):
                continue
            if field in ("instruction", "format") and _is_inline(v):
                out.append(FacetRef(owner, field, "(inline)", here, None, "inline", v))
                continue
            r: Resolution = resolve_reference(piece, base, v, field)
            found = (r.path, r.how, None, r.source, r.looked_in, r.mapped)
            out.append(FacetRef(owner, field, v, here, *found))

    movements = piece.movements or []
    for m, loc in _all_movements(piece):
        owner = m.name or (f"({m.uses})" if m.uses else "?")
        if len(loc) > 2:  # a sub-step: name it with its parent
            parent = movements[int(loc[1])]
            owner = f"{parent.name or '?'} / {owner}"
        add(owner, "persona", m.persona, (*loc, "persona"))
        add(owner, "persona", m.agent, (*loc, "agent"))
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
        add(owner, "persona", mon.judge.agent, (*judge, "agent"))
        add(owner, "instruction", mon.judge.instruction, (*judge, "instruction"))
        add(owner, "instruction", mon.judge.instruction_template, (*judge, "instruction_template"))
    return out


# -- template variables ------------------------------------------------------------


def instruction_texts(refs: list[FacetRef]) -> Iterator[tuple[str, Loc, Path | None]]:
    """Instruction texts of the piece: ``(text, loc in the piece, facet file or None)``."""
    for ref in refs:
        if ref.field != "instruction":
            continue
        if ref.inline is not None:
            yield ref.inline, ref.loc, None
        elif ref.path is not None:
            raw = read_text(ref.path, DiagnosticSink(str(ref.path)))
            if raw.text is not None:
                yield raw.text, ref.loc, ref.path


def unknown_placeholders(
    text: str, variables: Sequence[str], prefixes: Sequence[str]
) -> Iterator[tuple[str, int]]:
    """Placeholders shaped like TAKT variables that are not in the list."""
    for n, line in outside_code(text):
        line = _CODE_SPAN.sub("", line)
        # ``| {tag} | {file:line or "none"} | {✅ / ❌: reason} |``: a form to fill, its fields
        # no variables; only a near miss of one (``{taks}``) is said there
        form = _FORM_FIELD.search(line) is not None
        for m in _PLACEHOLDER.finditer(line):
            name, arg = m.group(1), m.group(2)
            if arg is not None:
                if name in prefixes or not _close(name, prefixes):
                    continue
            elif name in variables or (form and not _close(name, variables)):
                continue
            yield m.group(0), n


def _close(name: str, choices: Sequence[str]) -> list[str]:
    return difflib.get_close_matches(name, choices, n=1, cutoff=0.75)


def _suggestion(var: str, variables: Sequence[str], fmt: TaktFormat) -> str:
    inner = var.strip("{}")
    name, _, arg = inner.partition(":")
    if arg:
        return f" (did you mean {{report:{arg}}}?)"
    renamed = RENAMED_VARIABLES.get(name)
    if renamed in variables:
        return f" in a {fmt.name} (it is {{{renamed}}} there; TAKT 0.36 renamed the variables)"
    near = _close(name, variables)
    return f" (did you mean {{{near[0]}}}?)" if near else ""
