"""TAKT piece workflow YAML (seed 004, TAKT ≤ 0.33) with the keys real pieces use.

Later TAKT versions renamed piece→workflow and movement→step; this is the older format.
Provider options, team-leader settings and other engine keys are kept as data.
"""

from __future__ import annotations

from typing import Annotated, Any

from store.models.base import Choice, Record, Required

SPECIAL_NEXT = ("COMPLETE", "ABORT")
PERMISSION_MODES = ("readonly", "edit", "full")
SECTION_MAPS = ("personas", "policies", "instructions", "knowledge", "report_formats")

StrOrList = str | list[str]


class Rule(Record):
    condition: Annotated[str | None, Required("the condition text")] = None
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
    max_movements: Annotated[int | None, Required("the iteration limit")] = None
    initial_movement: str | None = None
    policies: dict[str, str] | None = None
    personas: dict[str, str] | None = None
    instructions: dict[str, str] | None = None
    report_formats: dict[str, str] | None = None
    knowledge: dict[str, str] | None = None
    piece_config: dict[str, Any] | None = None
    movements: Annotated[list[Movement] | None, Required("a list of movements")] = None
    loop_monitors: list[LoopMonitor] | None = None
