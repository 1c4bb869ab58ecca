"""TAKT piece YAML (seed 004) and the workflow format it became, read into one model: a
workflow's keys fill the piece keys (never as *set* fields, so never dumped)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from store.models.base import Choice, Record, Required

SPECIAL_NEXT = ("COMPLETE", "ABORT")
#: Routing markers some TAKT versions add to COMPLETE and ABORT (0.47–0.58, and forks of
#: the main branch between 0.52 and 0.53).
WORKFLOW_SPECIAL_NEXT = ("NEEDS_ADJUDICATION", "finding-conflict-adjudication")
PERMISSION_MODES = ("readonly", "edit", "full")


class ParamRef(Record):
    """``{$param: NAME}``: a callable workflow's or a step fragment's parameter (TAKT ≥ 0.37),
    bound by the caller (``args`` / ``with``), else the declared default."""

    param: str = Field(alias="$param")


Loc = tuple[str | int, ...]
#: A facet reference that may be a parameter, or a list of either (TAKT ≥ 0.37; an
#: ``instruction`` list is TAKT ≥ 0.60).
Ref = str | ParamRef
RefOrList = Ref | list[Ref]


#: Piece key → the workflow key TAKT 0.34 renamed it to.
WORKFLOW_KEYS = {
    "movements": "steps",
    "initial_movement": "initial_step",
    "max_movements": "max_steps",
    "piece_config": "workflow_config",
}


class Rule(Record):
    condition: str | None = None
    """Required, except that a workflow rule may give ``when`` instead (checked by the lint)."""
    when: str | None = None
    """A deterministic condition (TAKT ≥ 0.36 workflows), instead of ``condition``."""
    next: str | None = None
    return_: str | None = Field(None, alias="return")
    """A callable workflow's result label, instead of ``next`` (TAKT ≥ 0.37)."""
    requires_user_input: bool | None = None
    interactive_only: bool | None = None
    appendix: str | None = None


class OutputContracts(Record):
    report: list[dict[str, Any]] | None = None


class CommandGate(Record):
    """A quality gate TAKT runs as a shell command (TAKT ≥ 0.43), beside the AI directives
    written as strings."""

    type: Annotated[str | None, Required("command"), Choice("command")] = None
    name: str | None = None
    command: Annotated[str | None, Required("the shell command to run")] = None
    cwd: str | None = None
    timeout_ms: int | None = None


class TeamLeader(Record):
    max_parts: int | None = None
    part_persona: str | None = None
    part_edit: bool | None = None
    part_allowed_tools: list[str] | None = None
    part_permission_mode: Annotated[str | None, Choice(*PERMISSION_MODES)] = None
    refill_threshold: int | None = None


class RuleTree(Record):
    """A step's rules for a parallel step fragment (TAKT ≥ 0.55): its own, and each sub-step's
    by name."""

    self_: list[Rule] | None = Field(None, alias="self")
    parallel: dict[str, list[Rule]] | None = None


class Movement(Record):
    name: str | None = None
    """Required (checked by the lint), except on a step that takes it from a fragment."""
    persona: Ref | None = None
    persona_name: str | None = None
    agent: str | None = None
    """The persona's file before TAKT 0.8 renamed ``agent`` to ``persona``."""
    policy: RefOrList | None = None
    instruction: RefOrList | None = None
    instruction_template: str | None = None
    knowledge: RefOrList | None = None
    report: Any = None
    """The report(s) before TAKT 0.8's ``output_contracts``: a file name, ``{name, format}`` or
    a list of ``{Label: file}``."""
    uses: str | None = None
    """A step fragment expanded into this step (TAKT ≥ 0.55)."""
    with_: dict[str, Any] | None = Field(None, alias="with")
    edit: bool | None = None
    permission_mode: Annotated[str | None, Choice(*PERMISSION_MODES)] = None
    required_permission_mode: Annotated[str | None, Choice(*PERMISSION_MODES)] = None
    session: str | None = None
    pass_previous_response: bool | None = None
    allowed_tools: list[str] | None = None
    provider: str | None = None
    model: str | None = None
    provider_options: dict[str, Any] | None = None
    output_contracts: OutputContracts | None = None
    quality_gates: list[str | CommandGate] | None = None
    team_leader: TeamLeader | None = None
    parallel: list[Movement] | DynamicParallel | None = None
    rules: list[Rule] | RuleTree | None = None

    def substeps(self) -> list[tuple[Movement, Loc]]:
        """The parallel sub-steps with their place under the step: a list's, or a dynamic
        parallel's ``fixed`` then ``pool`` candidates."""
        par = self.parallel
        if par is None:
            return []
        out: list[tuple[Movement, Loc]] = []
        if isinstance(par, DynamicParallel):
            out += [(s, ("parallel", "fixed", j)) for j, s in enumerate(par.fixed or [])]
            out += [(s, ("parallel", "pool", j)) for j, s in enumerate(par.pool or [])]
            return out
        return [(s, ("parallel", j)) for j, s in enumerate(par)]

    def own_rules(self) -> list[tuple[Rule, Loc]]:
        """The step's rules with their place under it (a rule tree's ``self``)."""
        out: list[tuple[Rule, Loc]] = []
        if isinstance(self.rules, RuleTree):
            out += [(r, ("rules", "self", i)) for i, r in enumerate(self.rules.self_ or [])]
        else:
            out += [(r, ("rules", i)) for i, r in enumerate(self.rules or [])]
        return out


class DynamicParallel(Record):
    """``parallel: {fixed, pool, selection}`` (TAKT ≥ 0.55): the fixed sub-steps always run,
    a selector picks among the pool's."""

    fixed: list[Movement] | None = None
    pool: list[Movement] | None = None


Movement.model_rebuild()


class Judge(Record):
    persona: str | None = None
    agent: str | None = None
    instruction: str | None = None
    instruction_template: str | None = None
    rules: list[Rule] | None = None


class LoopMonitor(Record):
    cycle: Annotated[list[str] | None, Required("the movements of the cycle")] = None
    threshold: int | None = None
    judge: Judge | None = None


class Piece(Record):
    name: Annotated[str | None, Required("the piece name")] = None
    description: str | None = None
    max_movements: int | Literal["infinite"] | None = None
    """Filled from ``max_steps``, which may be ``infinite`` (TAKT ≥ 0.38)."""
    max_iterations: int | None = None
    """The limit's name before TAKT 0.12 (``max_movements``)."""
    initial_movement: str | None = None
    policies: dict[str, str] | None = None
    personas: dict[str, str] | None = None
    instructions: dict[str, str] | None = None
    report_formats: dict[str, str] | None = None
    knowledge: dict[str, str] | None = None
    piece_config: dict[str, Any] | None = None
    movements: list[Movement] | None = None
    loop_monitors: list[LoopMonitor] | None = None
    # -- the workflow format (TAKT ≥ 0.34) ------------------------------------------
    max_steps: int | Literal["infinite"] | None = None
    initial_step: str | None = None
    workflow_config: dict[str, Any] | None = None
    steps: list[Movement] | None = None

    @model_validator(mode="after")
    def _fill_piece_keys(self) -> Piece:
        """A workflow's keys stand in for the piece keys they renamed, where those are absent
        (not marked as set: a dump writes the file's own keys back)."""
        for piece_key, workflow_key in WORKFLOW_KEYS.items():
            if getattr(self, piece_key) is None and getattr(self, workflow_key) is not None:
                object.__setattr__(self, piece_key, getattr(self, workflow_key))
        if self.max_movements is None and self.max_iterations is not None:  # TAKT < 0.12
            object.__setattr__(self, "max_movements", self.max_iterations)
        return self
