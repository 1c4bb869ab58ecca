"""Which TAKT format a piece file is written in: a *piece* (TAKT ≤ 0.33) or a *workflow*
(TAKT ≥ 0.34), told from its content, and what differs between the two.

From TAKT's CHANGELOG and sources (github.com/nrslib/takt, tags v0.34.0 and v0.36.0):

- 0.34.0 renamed the top-level keys ``movements`` → ``steps``, ``initial_movement`` →
  ``initial_step``, ``max_movements`` → ``max_steps``, ``piece_config`` →
  ``workflow_config``, keeping the old ones as aliases that must agree with the new ones
  when both are given (``normalizePieceConfigAliases`` in ``workflow-schemas.ts``), and
  removed ``instruction_template`` (use ``instruction``; the schema rejects it).
- 0.36.0 dropped the old keys (the workflow schema is strict), moved ``.takt/pieces/`` to
  ``.takt/workflows/``, renamed the template variables ``{max_movements}`` and
  ``{movement_iteration}`` to ``{max_steps}`` and ``{step_iteration}``, and added
  ``when:`` rule conditions, ``kind: system`` and ``call:`` steps, ``structured_output``
  with a top-level ``schemas`` map, and ``{context:…}`` / ``{structured:…}`` /
  ``{effect:…}`` placeholders (``docs/workflows.md`` and ``escape.ts`` at v0.36.0).

Section maps, facets and their resolution, ``parallel`` sub-steps, rules with ``all()`` /
``any()``, output contracts and loop monitors are the same in both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from store.models.piece import WORKFLOW_KEYS, Movement, Piece

Loc = tuple[str | int, ...]
FormatName = Literal["piece", "workflow", "mixed"]

#: Seed 004's template variables (pieces, TAKT ≤ 0.33).
PIECE_VARIABLES = (
    "task",
    "previous_response",
    "iteration",
    "max_movements",
    "movement_iteration",
    "report_dir",
    "user_inputs",
    "cycle_count",
)
#: The workflow format's (TAKT ≥ 0.36, ``docs/workflows.md`` and ``escape.ts``).
WORKFLOW_VARIABLES = (
    "task",
    "previous_response",
    "iteration",
    "max_steps",
    "step_iteration",
    "report_dir",
    "user_inputs",
    "cycle_count",
)
PIECE_PREFIXES = ("report",)
WORKFLOW_PREFIXES = ("report", "context", "structured", "effect")
#: A variable of one format → its name in the other.
RENAMED_VARIABLES = {
    "max_movements": "max_steps",
    "movement_iteration": "step_iteration",
    "max_steps": "max_movements",
    "step_iteration": "movement_iteration",
}
#: Keys only TAKT ≥ 0.36 reads (top level, then on a step).
NEWER_TOP_KEYS = ("schemas", "subworkflow")
NEWER_STEP_KEYS = ("kind", "call", "structured_output", "system_inputs", "effects")


@dataclass(frozen=True, slots=True)
class TaktFormat:
    """What a file's keys say about the TAKT version that reads it."""

    name: FormatName
    versions: str
    """``"TAKT ≤ 0.33"``, ``"TAKT ≥ 0.34"``, ``"TAKT ≥ 0.36"`` or, mixed, ``"TAKT 0.34–0.35"``."""
    piece_keys: tuple[Loc, ...] = ()
    """Where the file uses the piece format's keys."""
    workflow_keys: tuple[Loc, ...] = ()
    """Where the file uses the workflow format's keys."""

    @property
    def is_workflow(self) -> bool:
        """Drawn and linted as a workflow (its steps are under ``steps``)."""
        return self.name == "workflow" or (self.name == "mixed" and self.flow_key == "steps")

    @property
    def flow_key(self) -> str:
        """The key the graph is drawn from: ``movements`` when the file has it."""
        return "movements" if ("movements",) in self.piece_keys else "steps"

    @property
    def noun(self) -> str:
        return "step" if self.is_workflow else "movement"

    @property
    def variables(self) -> tuple[str, ...]:
        if self.name == "mixed":
            return tuple(dict.fromkeys(PIECE_VARIABLES + WORKFLOW_VARIABLES))
        return WORKFLOW_VARIABLES if self.name == "workflow" else PIECE_VARIABLES

    @property
    def prefixes(self) -> tuple[str, ...]:
        return WORKFLOW_PREFIXES if self.name != "piece" else PIECE_PREFIXES

    @property
    def label(self) -> str:
        """For people: ``"piece (TAKT ≤ 0.33)"``, ``"workflow (TAKT ≥ 0.36)"``, …"""
        return f"{self.name} ({self.versions})"

    def key(self, piece_key: str) -> str:
        """The file's own name for a piece key (``movements`` → ``steps`` in a workflow)."""
        if piece_key in WORKFLOW_KEYS and (piece_key,) not in self.piece_keys:
            return WORKFLOW_KEYS[piece_key] if self.name != "piece" else piece_key
        return piece_key

    def loc(self, loc: Loc) -> Loc:
        """A location written with piece keys, as the file spells it."""
        if loc and isinstance(loc[0], str):
            return (self.key(loc[0]), *loc[1:])
        return loc


def _steps(piece: Piece) -> list[tuple[Movement, Loc]]:
    out: list[tuple[Movement, Loc]] = []
    for key in ("movements", "steps"):
        if key not in piece.model_fields_set:
            continue
        for i, mv in enumerate(getattr(piece, key) or []):
            out.append((mv, (key, i)))
            out.extend((sub, (key, i, "parallel", j)) for j, sub in enumerate(mv.parallel or []))
    return out


def takt_format(piece: Piece) -> TaktFormat:
    """The format of ``piece``, from the keys its file sets."""
    written = piece.model_fields_set
    piece_keys: list[Loc] = [(k,) for k in WORKFLOW_KEYS if k in written]
    workflow_keys: list[Loc] = [(w,) for w in WORKFLOW_KEYS.values() if w in written]
    newer = any(k in written or k in (piece.model_extra or {}) for k in NEWER_TOP_KEYS)
    workflow_file = bool(workflow_keys)
    for mv, loc in _steps(piece):
        if workflow_file and mv.instruction_template is not None:
            piece_keys.append((*loc, "instruction_template"))
        extra = mv.model_extra or {}
        if any(k in extra for k in NEWER_STEP_KEYS) or any(
            r.when is not None for r in mv.rules or []
        ):
            newer = True
    if piece_keys and workflow_keys:
        return TaktFormat("mixed", "TAKT 0.34–0.35", tuple(piece_keys), tuple(workflow_keys))
    if workflow_keys:
        return TaktFormat(
            "workflow", "TAKT ≥ 0.36" if newer else "TAKT ≥ 0.34", (), tuple(workflow_keys)
        )
    return TaktFormat("piece", "TAKT ≤ 0.33", tuple(piece_keys), ())


def dotted(loc: Loc) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out
