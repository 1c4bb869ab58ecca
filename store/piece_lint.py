"""Cross-checks of a TAKT piece: transitions, loop monitors, reports and facet references."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from .diagnostics import DiagnosticSink
from .models.piece import SPECIAL_NEXT, Movement, Piece, Rule
from .yamlload import YamlDoc

#: Reference field → (section map of the piece, facet directory name).
FACET_KINDS = {
    "persona": ("personas", "personas"),
    "policy": ("policies", "policies"),
    "instruction": ("instructions", "instructions"),
    "knowledge": ("knowledge", "knowledge"),
    "format": ("report_formats", "output-contracts"),
}
_REPORT_REF = re.compile(r"\{report:([^}\s]+)\}")

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
        section, kind = FACET_KINDS[field]
        mapping = getattr(self.piece, section) or {}
        if name in mapping:
            p = self.dir / mapping[name]
            return p if p.is_file() else None
        if "/" in name or name.endswith(".md"):
            p = self.dir / name
            return p if p.is_file() else None
        for base in (self.dir.parent / "facets", self.dir / "facets"):
            p = base / kind / f"{name}.md"
            if p.is_file():
                return p
        return None

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
