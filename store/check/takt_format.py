"""Which TAKT format a piece file is in, told from its keys (docs/command-line.md, "TAKT
versions"); a file claims the version of the newest key it uses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from store.models.piece import WORKFLOW_KEYS, DynamicParallel, Movement, ParamRef, Piece, RuleTree

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
#: What TAKT 0.36 renamed in the workflow format (``docs/workflows.md``, ``escape.ts``).
_RENAMED = {"max_movements": "max_steps", "movement_iteration": "step_iteration"}
#: The workflow format's (TAKT ≥ 0.36).
WORKFLOW_VARIABLES = (*(_RENAMED.get(v, v) for v in PIECE_VARIABLES), "review_scope")
#: TAKT 0.1–0.3's (``steps``) and 0.4–0.11's (``movements``), before ``max_movements``.
EARLY_WORKFLOW_VARIABLES = (
    "task",
    "previous_response",
    "iteration",
    "max_iterations",
    "step_iteration",
    "report_dir",
    "user_inputs",
)
EARLY_PIECE_VARIABLES = (*PIECE_VARIABLES, "max_iterations")
PIECE_PREFIXES = ("report",)
WORKFLOW_PREFIXES = ("report", "context", "structured", "effect", "var")
#: A variable of one format → its name in the other.
RENAMED_VARIABLES = {**_RENAMED, **{new: old for old, new in _RENAMED.items()}}
#: A workflow file with no key newer than the rename's: TAKT 0.34–0.35 read it with the
#: piece variables (their ``escape.ts``), 0.36 on with the workflow's.
FIRST_WORKFLOWS = "TAKT ≥ 0.34"
#: Keys only TAKT ≥ 0.36 reads (top level, then on a step).
NEWER_TOP_KEYS = ("schemas", "subworkflow")
NEWER_STEP_KEYS = ("kind", "call", "structured_output", "system_inputs", "effects")
#: Keys of a step before TAKT 0.8 (``agent`` → ``persona``, ``report`` → ``output_contracts``).
EARLY_STEP_KEYS = ("agent", "report")
#: The early files' own names of the piece keys.
EARLY_KEYS = {"movements": "steps", "initial_movement": "initial_step"}
#: A ``subworkflow``'s keys of a callable workflow (TAKT ≥ 0.37).
_CALLABLE_KEYS = {"params", "returns", "visibility"}


@dataclass(frozen=True, slots=True)
class TaktFormat:
    """What a file's keys say about the TAKT version that reads it."""

    name: FormatName
    versions: str  # ``TAKT 0.12–0.33``, ``TAKT ≥ 0.55``, mixed: ``TAKT 0.34–0.35``, …
    piece_keys: tuple[Loc, ...] = ()  # where the file uses the piece format's keys
    workflow_keys: tuple[Loc, ...] = ()  # … and the workflow format's
    early: bool = False  # before TAKT 0.12: ``max_iterations`` (before 0.8 ``agent``)

    @property
    def is_workflow(self) -> bool:
        return self.name == "workflow" or (self.name == "mixed" and self.flow_key == "steps")

    @property
    def flow_key(self) -> str:
        """The key the graph is drawn from."""
        return "movements" if ("movements",) in self.piece_keys else "steps"

    @property
    def noun(self) -> str:
        return "step" if self.is_workflow else "movement"

    @property
    def variables(self) -> tuple[str, ...]:
        if self.early:
            return EARLY_WORKFLOW_VARIABLES if self.is_workflow else EARLY_PIECE_VARIABLES
        if self.name == "mixed":
            return tuple(dict.fromkeys(PIECE_VARIABLES + WORKFLOW_VARIABLES))
        return WORKFLOW_VARIABLES if self.name == "workflow" else PIECE_VARIABLES

    @property
    def prefixes(self) -> tuple[str, ...]:
        return WORKFLOW_PREFIXES if self.name != "piece" and not self.early else PIECE_PREFIXES

    @property
    def label(self) -> str:
        return f"{self.name} ({self.versions})"

    def key(self, piece_key: str) -> str:
        """The file's own name for a piece key (``movements`` → ``steps`` in a workflow)."""
        if self.early:
            if piece_key == "max_movements":
                return "max_iterations"
            return EARLY_KEYS.get(piece_key, piece_key) if self.is_workflow else piece_key
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
            out.extend((sub, (key, i, *at)) for sub, at in mv.substeps())
    return out


def _has_param(value: object) -> bool:
    if isinstance(value, ParamRef):
        return True
    return isinstance(value, list) and any(isinstance(v, ParamRef) for v in value)


def _step_version(mv: Movement) -> int:
    """The newest TAKT minor version a step's keys need (0: none of the newer keys)."""
    extra = mv.model_extra or {}
    rules = [r for r, _ in mv.own_rules()]
    refs = (mv.persona, mv.policy, mv.knowledge, mv.instruction)
    needs = (
        (36, any(k in extra for k in NEWER_STEP_KEYS) or any(r.when is not None for r in rules)),
        (37, any(_has_param(v) for v in refs) or any(r.return_ is not None for r in rules)),
        (
            55,
            mv.uses is not None
            or isinstance(mv.parallel, DynamicParallel)
            or isinstance(mv.rules, RuleTree)
            or "vars" in extra,
        ),
        (59, "completion_retry" in extra),
        (60, isinstance(mv.instruction, list)),
    )
    return max((version for version, holds in needs if holds), default=0)


def takt_format(piece: Piece) -> TaktFormat:
    """The format of ``piece``, from the keys its file sets."""
    written = piece.model_fields_set
    extra_top = piece.model_extra or {}
    steps = _steps(piece)
    early = "max_iterations" in written or any(
        k in mv.model_fields_set for mv, _ in steps for k in EARLY_STEP_KEYS
    )
    if early:
        workflow = "steps" in written and "movements" not in written
        if workflow:
            return TaktFormat("workflow", "TAKT ≤ 0.3", early=True)
        before_08 = any(k in mv.model_fields_set for mv, _ in steps for k in EARLY_STEP_KEYS)
        return TaktFormat("piece", "TAKT 0.4–0.7" if before_08 else "TAKT 0.8–0.11", early=True)
    piece_keys: list[Loc] = [(k,) for k in WORKFLOW_KEYS if k in written]
    workflow_keys: list[Loc] = [(w,) for w in WORKFLOW_KEYS.values() if w in written]
    subworkflow = extra_top.get("subworkflow")
    needs = (
        (36, any(k in written or k in extra_top for k in NEWER_TOP_KEYS)),
        (37, isinstance(subworkflow, dict) and bool(subworkflow.keys() & _CALLABLE_KEYS)),
        (38, piece.max_steps == "infinite"),
        (59, "all_steps" in extra_top),
    )
    need = max((version for version, holds in needs if holds), default=0)
    workflow_file = bool(workflow_keys)
    for mv, loc in steps:
        if workflow_file and mv.instruction_template is not None:
            piece_keys.append((*loc, "instruction_template"))
        need = max(need, _step_version(mv))
    if piece_keys and workflow_keys:
        return TaktFormat("mixed", "TAKT 0.34–0.35", tuple(piece_keys), tuple(workflow_keys))
    if workflow_keys:
        return TaktFormat(
            "workflow", f"TAKT ≥ 0.{need}" if need else FIRST_WORKFLOWS, (), tuple(workflow_keys)
        )
    versions = "TAKT 0.12–0.33" if "max_movements" in written else "TAKT ≤ 0.33"
    return TaktFormat("piece", versions, tuple(piece_keys), ())
