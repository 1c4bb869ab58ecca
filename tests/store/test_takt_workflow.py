"""The newer TAKT format: *workflows* of *steps*, read into the same model as pieces.

The files below are written from TAKT's own documentation, github.com/nrslib/takt at tag
v0.36.0 (commit 2ec4fcb20d475d538b2d3b2cc477d68f4d02a74f): ``docs/workflows.md`` ("Workflow
Schema", "Workflow with Review", "Parallel Steps", "Available Variables"),
``builtins/skill/references/yaml-schema.md`` ("Loop Monitors"), and ``CHANGELOG.md``
0.34.0 (the key renames, ``instruction_template`` removed) and 0.36.0 (old keys dropped,
``when:`` rule conditions).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from store.check.files import lint_file
from store.check.piece_graph import assign_diagnostics, build_graph, outline
from store.check.piece_lint import facet_references
from store.check.takt_format import takt_format
from store.config import Config
from store.insight.lint import lint_workspace
from store.models import Piece
from store.read.kinds import Kind
from store.read.loader import load_file
from store.workspace import Workspace
from tests.store.test_piece_graph import plain


@pytest.fixture(autouse=True)
def _user_takt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAKT_CONFIG_DIR", str(tmp_path / "user-takt"))


# docs/workflows.md "Workflow with Review" (v0.36.0), with the "Parallel Steps" reviewers
# and a loop monitor as yaml-schema.md describes one; the section maps point at facets
# beside the workflow, as in "Workflow Schema".
WORKFLOW = """name: with-review
description: Implement, review in parallel, fix
max_steps: 10
initial_step: implement

personas:
  coder: ../facets/personas/coder.md
  reviewer: ../facets/personas/architecture-reviewer.md

steps:
  - name: implement
    persona: coder
    edit: true
    required_permission_mode: edit
    provider_options:
      claude:
        allowed_tools: [Read, Glob, Grep, Edit, Write, Bash, WebSearch, WebFetch]
    rules:
      - condition: Implementation complete
        next: reviewers
      - condition: Cannot proceed
        next: ABORT
    instruction: |
      Implement the requested changes ({step_iteration} of {max_steps}).

  - name: reviewers
    parallel:
      - name: arch-review
        persona: reviewer
        policy: review
        knowledge: architecture
        edit: false
        rules:
          - condition: approved
          - condition: needs_fix
        instruction: review-arch
      - name: security-review
        persona: security-reviewer
        policy: review
        edit: false
        rules:
          - condition: approved
          - condition: needs_fix
        instruction: review-security
    rules:
      - condition: all("approved")
        next: COMPLETE
      - condition: any("needs_fix")
        next: fix

  - name: fix
    persona: coder
    edit: true
    rules:
      - condition: Fixed
        next: reviewers
    instruction: |
      Fix what {report:review.md} lists.
    output_contracts:
      report:
        - name: review.md
          format: architecture-review

loop_monitors:
  - cycle: [reviewers, fix]
    threshold: 3
    judge:
      persona: supervisor
      instruction: |
        The cycle repeated {cycle_count} times. Is it making progress?
      rules:
        - condition: Healthy
          next: reviewers
        - condition: Unproductive
          next: ABORT
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def workflow_dir(tmp_path: Path) -> Path:
    """``.takt/workflows/`` (TAKT ≥ 0.36) with the mapped facet files."""
    takt = tmp_path / "proj/.takt"
    for name in ("coder", "architecture-reviewer"):
        write(takt / f"facets/personas/{name}.md", f"You are the {name}.\n")
    return takt


def test_a_documented_workflow_lints_clean_and_graphs_like_a_piece(tmp_path: Path) -> None:
    takt = workflow_dir(tmp_path)
    path = write(takt / "workflows/with-review.yaml", WORKFLOW)
    assert lint_file(path, None, "with-review.yaml") == []
    piece = load_file(path).doc
    assert isinstance(piece, Piece)
    fmt = takt_format(piece)
    assert (fmt.name, fmt.versions, fmt.noun) == ("workflow", "TAKT ≥ 0.34", "step")
    assert [m.name for m in piece.movements or []] == ["implement", "reviewers", "fix"]
    assert (piece.initial_movement, piece.max_movements) == ("implement", 10)
    graph = build_graph(piece)
    assert graph.unreachable() == [] and graph.no_exit() == []
    assert [e.condition.kind for e in graph.nodes["reviewers"].edges] == ["all", "any"]
    assert graph.nodes["fix"].loc == ("steps", 2)
    head = plain(outline(graph)[0].lines)
    assert head == "start → implement  (initial_step)"
    refs = {(r.owner, r.name): r.source for r in facet_references(piece, path)}
    assert refs[("implement", "coder")] == "section map"
    assert refs[("reviewers / security-review", "security-reviewer")] == "built-in"
    assert refs[("reviewers / arch-review", "review-arch")] == "built-in"
    # the loaded model keeps the file's own keys (and so does the index cache's dump)
    dumped = piece.model_dump(mode="json", by_alias=True, exclude_unset=True)
    assert "steps" in dumped and "movements" not in dumped
    again = Piece.model_validate(dumped)
    assert takt_format(again).name == "workflow" and again.movements == again.steps


def test_workflows_are_recognised_by_content_and_found_in_dot_takt(tmp_path: Path) -> None:
    loose = write(tmp_path / "elsewhere/review.yaml", WORKFLOW)
    assert load_file(loose).kind is Kind.PIECE
    minimal = write(tmp_path / "elsewhere/min.yaml", "name: m\nsteps:\n  - name: only\n")
    assert load_file(minimal).kind is Kind.PIECE
    takt = workflow_dir(tmp_path)
    write(takt / "workflows/with-review.yaml", WORKFLOW)
    ws = Workspace(tmp_path / "root", Config(paths={"pieces": [takt]}))
    assert [f.path.name for f in ws.discover()] == ["with-review.yaml"]
    assert list(lint_workspace(ws)) == []


def test_diagnostics_of_a_workflow_point_at_its_own_lines(tmp_path: Path) -> None:
    text = WORKFLOW.replace(
        "next: reviewers\n      - condition: Cannot", "next: nowhere\n      - condition: Cannot"
    ).replace("{step_iteration} of {max_steps}", "{movement_iteration} of {max_steps}")
    path = write(workflow_dir(tmp_path) / "workflows/w.yaml", text)
    loaded = load_file(path)
    diags = lint_file(path, None, "w.yaml")
    assert sorted((d.line, d.code) for d in diags) == [
        (20, "unknown-movement"),  # next: nowhere
        (24, "unknown-template-variable"),  # {movement_iteration}, a piece's variable
        (26, "unreachable-movement"),  # reviewers
        (51, "unreachable-movement"),  # fix
    ]
    by = {d.code: d.message for d in diags}
    assert "not a step" in by["unknown-movement"]
    assert "it is {step_iteration} there" in by["unknown-template-variable"]
    assert any(d.message.startswith("step 'reviewers' is never reached") for d in diags)
    # the screen puts each under its step, found by the step's own line
    piece = loaded.doc
    assert isinstance(piece, Piece) and loaded.yaml is not None
    sections = outline(build_graph(piece))
    placed = assign_diagnostics(sections, loaded.yaml.line_of, list(loaded.data), diags)
    assert [d.line for d in placed["movement:reviewers"]] == [26]
    assert [d.line for d in placed["movement:implement"]] == [20, 24]


MIXED = """name: mixed
max_movements: 10
initial_step: plan
movements:
  - name: plan
    instruction: plan
    rules:
      - condition: done
        next: COMPLETE
"""


def test_a_file_mixing_both_formats_is_one_clear_error(tmp_path: Path) -> None:
    path = write(tmp_path / "pieces/mixed.yaml", MIXED)
    diags = lint_file(path, None, "mixed.yaml")
    assert [(d.code, d.line, d.severity) for d in diags] == [("mixed-takt-format", 3, "error")]
    assert "movements, max_movements" in diags[0].message and "initial_step" in diags[0].message
    piece = load_file(path).doc
    assert isinstance(piece, Piece)
    assert takt_format(piece).name == "mixed" and piece.initial_movement == "plan"
    # instruction_template (removed in 0.34) in a workflow's step is mixing too
    wf = write(
        tmp_path / "pieces/wf.yaml",
        "name: wf\nsteps:\n  - name: a\n    instruction_template: |\n      Do {task}.\n"
        "    rules:\n      - condition: ok\n        next: COMPLETE\n",
    )
    diags = lint_file(wf, None, "wf.yaml")
    assert [(d.code, d.line) for d in diags] == [("mixed-takt-format", 4)]
    assert "steps[0].instruction_template" in diags[0].message


def test_required_keys_follow_the_format(tmp_path: Path) -> None:
    no_steps = write(tmp_path / "pieces/a.yaml", "name: a\nmax_steps: 3\n")
    assert [(d.code, d.message) for d in lint_file(no_steps, None, "a.yaml")] == [
        ("missing-field", "required field 'steps' is missing (expected a list of steps)")
    ]
    # max_steps may be left out of a workflow (TAKT's default is 10); seed 004 requires
    # max_movements of a piece
    wf = write(
        tmp_path / "pieces/b.yaml",
        "name: b\nsteps:\n  - name: s\n    rules:\n      - condition: ok\n        next: COMPLETE\n",
    )
    assert lint_file(wf, None, "b.yaml") == []
    pc = write(
        tmp_path / "pieces/c.yaml",
        "name: c\nmovements:\n  - name: s\n    rules:\n"
        "      - condition: ok\n        next: COMPLETE\n",
    )
    assert [d.message for d in lint_file(pc, None, "c.yaml")] == [
        "required field 'max_movements' is missing (expected the iteration limit)"
    ]


WHEN = """name: routed
steps:
  - name: check
    kind: system
    rules:
      - when: context.task.exists == true
        next: work
      - when: context.task.exists == false
        next: ABORT
  - name: work
    rules:
      - condition: done
        next: COMPLETE
"""


def test_when_conditions_of_takt_036(tmp_path: Path) -> None:
    path = write(tmp_path / "pieces/routed.yaml", WHEN)
    assert lint_file(path, None, "routed.yaml") == []
    piece = load_file(path).doc
    assert isinstance(piece, Piece)
    assert takt_format(piece).versions == "TAKT ≥ 0.36"
    edges = build_graph(piece).nodes["check"].edges
    assert [(e.condition.kind, e.condition.text, e.target) for e in edges] == [
        ("when", "context.task.exists == true", "work"),
        ("when", "context.task.exists == false", "ABORT"),
    ]
    text = plain(next(s for s in outline(build_graph(piece)) if s.key == "movement:check").lines)
    assert "when context.task.exists == true  →  work" in text
    # a piece knows no 'when': its rule lacks a condition
    as_piece = write(
        tmp_path / "pieces/old.yaml",
        WHEN.replace("steps:", "max_movements: 5\nmovements:"),
    )
    got = [(d.code, d.line) for d in lint_file(as_piece, None, "old.yaml")]
    assert got == [("missing-field", 7), ("missing-field", 9)]


def test_template_variables_follow_the_format(tmp_path: Path) -> None:
    piece = write(
        tmp_path / "pieces/p.yaml",
        "name: p\nmax_movements: 3\nmovements:\n  - name: a\n    instruction: |\n"
        "      Round {movement_iteration} of {max_movements}; not {max_steps}.\n"
        "    rules:\n      - condition: ok\n        next: COMPLETE\n",
    )
    diags = lint_file(piece, None, "p.yaml")
    assert [(d.code, d.line) for d in diags] == [("unknown-template-variable", 6)]
    assert "{max_steps} is not a TAKT template variable in a piece (it is {max_movements}" in (
        diags[0].message
    )
