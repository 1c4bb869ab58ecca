"""TAKT piece workflow YAML (seed 004, TAKT ≤ 0.33) with the keys real pieces use, and the
newer *workflow* format it became, read into the same model.

TAKT 0.34 renamed the top-level keys (``movements`` → ``steps``, ``initial_movement`` →
``initial_step``, ``max_movements`` → ``max_steps``, ``piece_config`` → ``workflow_config``),
keeping the old ones as aliases; 0.36 removed the old ones (TAKT's CHANGELOG, 0.34.0 and
0.36.0). Both sets are fields here. A workflow's keys also fill the piece keys they renamed
when those are absent, so the graph, the lint and the screens read ``movements`` (and
``initial_movement``, ``max_movements``) whatever the file says; the filled values are not
*set* fields (``model_fields_set``), so they are neither dumped nor checked twice. Which
format a file is in is :func:`store.check.takt_format.takt_format`'s business; the required
keys depend on it and are checked by the piece lint, not by markers here.

Provider options, team-leader settings and other engine keys are kept as data.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import model_validator

from store.models.base import Choice, Record, Required

SPECIAL_NEXT = ("COMPLETE", "ABORT")
PERMISSION_MODES = ("readonly", "edit", "full")
SECTION_MAPS = ("personas", "policies", "instructions", "knowledge", "report_formats")

StrOrList = str | list[str]


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
    requires_user_input: bool | None = None
    interactive_only: bool | None = None
    appendix: str | None = None


class OutputContracts(Record):
    report: list[dict[str, Any]] | None = None


class TeamLeader(Record):
    max_parts: int | None = None
    part_persona: str | None = None
    part_edit: bool | None = None
    part_allowed_tools: list[str] | None = None
    part_permission_mode: Annotated[str | None, Choice(*PERMISSION_MODES)] = None
    refill_threshold: int | None = None


class Movement(Record):
    name: Annotated[str | None, Required("a unique movement name")] = None
    persona: str | None = None
    persona_name: str | None = None
    policy: StrOrList | None = None
    instruction: str | None = None
    instruction_template: str | None = None
    knowledge: StrOrList | None = None
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
    quality_gates: list[str] | None = None
    team_leader: TeamLeader | None = None
    parallel: list[Movement] | None = None
    rules: list[Rule] | None = None


class Judge(Record):
    persona: str | None = None
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
    max_movements: int | None = None
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
    max_steps: int | None = None
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
        return self
