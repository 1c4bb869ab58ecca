"""The movement graph and the lint built on it, over TAKT's real pieces and small cases."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pytest

from store.check.files import lint_file
from store.check.piece_graph import (
    Line,
    assign_diagnostics,
    build_graph,
    outline,
    parse_condition,
)
from store.check.piece_lint import facet_references, unknown_placeholders
from store.check.takt_format import PIECE_PREFIXES, PIECE_VARIABLES
from store.insight.lint import lint_paths
from store.models import Piece
from store.read.diagnostics import Diagnostic
from store.read.loader import load_file
from tests.conftest import DEMO, TAKT

BUILTINS = sorted((TAKT / "builtins/en/pieces").glob("*.yaml"))
E2E = TAKT / "e2e/fixtures/pieces"


def plain(lines: Iterable[Line]) -> str:
    """An outline's lines as plain text."""
    return "\n".join("".join(t for t, _r in line) for line in lines)


def piece_of(path: Path) -> Piece:
    doc = load_file(path).doc
    assert isinstance(doc, Piece)
    return doc


def write_piece(tmp_path: Path, text: str, name: str = "p.yaml") -> Path:
    d = tmp_path / "pieces"
    d.mkdir(exist_ok=True)
    p = d / name
    p.write_text(text)
    return p


def codes(diags: list[Diagnostic]) -> list[str]:
    return [d.code for d in diags]


# -- the real corpus ---------------------------------------------------------------


@pytest.mark.parametrize("path", BUILTINS, ids=lambda p: p.stem)
def test_builtin_graph_is_sound(path: Path) -> None:
    graph = build_graph(piece_of(path))
    assert graph.initial_known
    assert graph.unreachable() == []
    assert graph.no_exit() == []
    edges = [e for part in (*graph.nodes.values(), *graph.monitors) for e in part.edges]
    assert all(e.known for e in edges)
    sections = outline(graph)
    assert sections[0].key == "head"
    assert len(sections) == 1 + len(graph.nodes) + len(graph.monitors)


def test_builtins_stay_free_of_diagnostics_with_the_new_checks() -> None:
    assert list(lint_paths([TAKT / "builtins"], None)) == []


def test_e2e_fixtures_lint_with_only_real_findings() -> None:
    diags = list(lint_paths([E2E], None))
    by_code = Counter(d.code for d in diags)
    # the agents/ directory the fixtures point at is not part of the copy
    assert set(by_code) == {"yaml-syntax", "unresolved-facet", "no-exit"}
    assert by_code["yaml-syntax"] == 1 and by_code["no-exit"] == 2
    no_exit = sorted((Path(d.path).name, d.line) for d in diags if d.code == "no-exit")
    assert no_exit == [("mock-max-iter.yaml", 12), ("mock-max-iter.yaml", 21)]


def test_broken_piece_has_no_graph_diagnostics() -> None:
    path = E2E / "broken.yaml"
    diags = lint_file(path, None, "broken.yaml")
    assert codes(diags) == ["yaml-syntax"]
    assert load_file(path).doc is None


def test_default_piece_graph() -> None:
    graph = build_graph(piece_of(TAKT / "builtins/en/pieces/default.yaml"))
    assert graph.initial == "plan" and graph.initial_explicit
    assert list(graph.nodes) == [
        "plan",
        "write_tests",
        "implement",
        "ai_review",
        "ai_fix",
        "reviewers",
        "fix",
    ]
    reviewers = graph.nodes["reviewers"]
    assert reviewers.is_parallel
    assert [s.name for s in reviewers.substeps] == ["arch-review", "supervise"]
    assert reviewers.substeps[1].outcomes == [
        "All checks passed",
        "Requirements unmet, tests failing, build errors",
    ]
    conds = [(e.condition.kind, e.condition.args, e.target) for e in reviewers.edges]
    assert conds == [
        ("all", ("approved", "All checks passed"), "COMPLETE"),
        ("any", ("needs_fix", "Requirements unmet, tests failing, build errors"), "fix"),
    ]
    assert graph.nodes["plan"].exits == {"COMPLETE", "ABORT"}
    assert [m.cycle for m in graph.monitors] == [["ai_review", "ai_fix"], ["reviewers", "fix"]]
    assert [e.target for e in graph.monitors[1].edges] == ["reviewers", "ABORT"]
    text = "\n".join(plain(s.lines) for s in outline(graph))
    assert 'all arch-review="approved" ∧ supervise="All checks passed"  →  ✔ COMPLETE' in text
    assert "any of [arch-review, supervise]" in text
    assert "⟲ loop monitor 2: reviewers ↔ fix   after 3 cycles" in text
    assert '"unproductive (same findings repeating)"  →  ✘ ABORT' in text
    assert "User input needed for clarification" in text and "(asks the user" in text


def test_cycle_fixture_loop_monitor() -> None:
    graph = build_graph(piece_of(E2E / "mock-cycle-detect.yaml"))
    assert graph.initial == "review"
    (mon,) = graph.monitors
    assert mon.cycle == ["review", "fix"] and mon.threshold == 2
    assert mon.judge is not None and mon.judge.persona == "../agents/test-reviewer-b.md"
    assert [(e.condition.text, e.target) for e in mon.edges] == [
        ("continue", "review"),
        ("abort_loop", "ABORT"),
    ]
    # 'fix' only goes back to 'review', but the judge may abort the cycle
    assert graph.nodes["fix"].exits == {"COMPLETE", "ABORT"}
    assert graph.nodes["review"].incoming and graph.no_exit() == []
    lines = plain(outline(graph)[-1].lines)
    assert lines.splitlines()[0] == "⟲ loop monitor 1: review ↔ fix   after 2 cycles"
    assert '"abort_loop"  →  ✘ ABORT' in lines


def test_max_iter_fixture_has_no_exit() -> None:
    graph = build_graph(piece_of(E2E / "mock-max-iter.yaml"))
    assert [n.name for n in graph.no_exit()] == ["step-a", "step-b"]
    text = plain(outline(graph)[1].lines)
    assert "⚠ no path to COMPLETE or ABORT" in text


def test_parallel_fixture_and_first_movement_as_initial(tmp_path: Path) -> None:
    graph = build_graph(piece_of(E2E / "multi-step-parallel.yaml"))
    review = graph.nodes["review"]
    assert [e.condition.kind for e in review.edges] == ["all", "any"]
    graph = build_graph(piece_of(E2E / "mock-single-step.yaml"))
    assert (graph.initial, graph.initial_explicit) == ("execute", False)
    assert "(the first movement)" in plain(outline(graph)[0].lines)


def test_demo_pieces_graph_and_facets() -> None:
    path = DEMO / "pieces/builtin/api-feature.yaml"
    piece = piece_of(path)
    graph = build_graph(piece)
    assert graph.no_exit() == [] and graph.unreachable() == []
    refs = facet_references(piece, path)
    assert refs and all(r.path is not None or r.inline is not None for r in refs)
    security = [r for r in refs if r.name == "security"]
    assert security and security[0].how == "facet directory"
    assert security[0].source == "project"
    planner = next(r for r in refs if r.name == "planner")
    assert planner.how == "personas map" and planner.path is not None
    inline = [r for r in refs if r.inline is not None]
    assert [r.owner for r in inline] == ["fix", "supervise", "loop monitor 1 judge"]


# -- small cases ---------------------------------------------------------------------

UNREACHABLE = """name: t
max_movements: 5
initial_movement: a
movements:
  - name: a
    rules:
      - condition: done
        next: COMPLETE
  - name: orphan
    rules:
      - condition: done
        next: a
  - name: loop1
    rules:
      - condition: again
        next: loop2
  - name: loop2
    rules:
      - condition: again
        next: loop1
"""


def test_unreachable_and_no_exit(tmp_path: Path) -> None:
    path = write_piece(tmp_path, UNREACHABLE)
    diags = lint_file(path, None, "p.yaml")
    assert sorted((d.code, d.line) for d in diags) == [
        ("unreachable-movement", 9),
        ("unreachable-movement", 13),
        ("unreachable-movement", 17),
    ]
    assert all(d.severity == "warning" for d in diags)
    assert "never reached from the initial movement 'a'" in diags[0].message
    graph = build_graph(piece_of(path))
    # unreachable movements are not also reported for having no exit
    assert graph.no_exit() == []
    assert {n.name for n in graph.nodes.values() if not n.exits} == {"loop1", "loop2"}


def test_unknown_initial_skips_reachability(tmp_path: Path) -> None:
    path = write_piece(tmp_path, UNREACHABLE.replace("initial_movement: a", "initial_movement: x"))
    diags = lint_file(path, None, "p.yaml")
    assert "unreachable-movement" not in codes(diags)
    assert codes(diags).count("unknown-movement") == 1
    assert build_graph(piece_of(path)).unreachable() == []


def test_movement_without_rules_has_no_exit(tmp_path: Path) -> None:
    path = write_piece(tmp_path, "name: t\nmax_movements: 2\nmovements:\n  - name: only\n")
    assert codes(lint_file(path, None, "p.yaml")) == ["no-exit"]
    assert "no rules" in plain(outline(build_graph(piece_of(path)))[1].lines)


AGGREGATES = """name: t
max_movements: 5
movements:
  - name: review
    parallel:
      - name: a
        rules:
          - condition: approved
          - condition: needs_fix
      - name: b
        rules:
          - condition: ai("looks fine")
          - condition: needs_fix
    rules:
      - condition: all("approved")
        next: COMPLETE
      - condition: all("approved", "looks fine", "extra")
        next: COMPLETE
      - condition: any("needs_fix", "rejected")
        next: ABORT
      - condition: all("approved", "looks fine")
        next: COMPLETE
  - name: plain
    rules:
      - condition: any("x")
        next: COMPLETE
"""


def test_aggregate_checks(tmp_path: Path) -> None:
    path = write_piece(tmp_path, AGGREGATES)
    diags = lint_file(path, None, "p.yaml")
    found = sorted((d.code, d.line) for d in diags if d.code != "unreachable-movement")
    assert found == [
        ("aggregate-arity", 17),
        ("aggregate-outside-parallel", 25),
        ("unknown-aggregate-condition", 15),
        ("unknown-aggregate-condition", 19),
    ]
    messages = {d.line: d.message for d in diags}
    assert messages[15] == (
        "all(\"approved\"): sub-step 'b' of 'review' declares no outcome 'approved' "
        "(so it never matches)"
    )
    assert "names 3 outcomes for 2 sub-steps (a, b)" in messages[17]
    assert messages[19].endswith("sub-steps 'a', 'b' of 'review' declare no outcome 'rejected'")
    assert (
        messages[25] == "any(\"x\") on 'plain', which has no parallel sub-steps: it never matches"
    )


def test_parse_condition() -> None:
    assert parse_condition('all("A", "B")').args == ("A", "B")
    assert parse_condition("any('x')").args == ("x",)
    assert parse_condition('ai("the code has a problem")').kind == "ai"
    c = parse_condition("Requirements are clear")
    assert (c.kind, c.args) == ("tag", ("Requirements are clear",))
    assert parse_condition(None).text == ""


# -- template variables --------------------------------------------------------------

TEMPLATES = """name: t
max_movements: 5
movements:
  - name: a
    instruction_template: |
      Do {task}, after {previous_respons}. Reports: {report_directory}, {reports:plan.md}.
      Fill in {Summary}, {N}, {filepath:line_number}, `{id}` and ${HOME}.
      ```js
      const x = {value};
      ```
    rules:
      - condition: done
        next: b
  - name: b
    instruction: review
    rules:
      - condition: done
        next: COMPLETE
"""


def test_unknown_template_variables(tmp_path: Path) -> None:
    path = write_piece(tmp_path, TEMPLATES)
    facets = tmp_path / "facets" / "instructions"
    facets.mkdir(parents=True)
    (facets / "review.md").write_text(
        "Review iteration {iteration} of {max_movements} ({movement_iteration}).\n"
        "Use {user_inputs} and {report:plan.md}.\n\n```\n{cycle_count} {whatever}\n```\n"
        "Cycle {cycle_cnt}.\n"
    )
    diags = [d for d in lint_file(path, None, "p.yaml") if d.code == "unknown-template-variable"]
    messages = [d.message for d in diags]
    assert len(diags) == 4, messages
    assert "{previous_respons}" in messages[0] and "did you mean {previous_response}" in messages[0]
    assert "{report_directory}" in messages[1] and "did you mean {report_dir}" in messages[1]
    assert "{reports:plan.md}" in messages[2] and "{report:plan.md}" in messages[2]
    # a facet file's placeholder: on the facet file's own line (once, however many use it)
    assert messages[3].startswith("{cycle_cnt} is not a TAKT template variable")
    assert [(d.path, d.line) for d in diags] == [
        ("p.yaml", 6),
        ("p.yaml", 6),
        ("p.yaml", 6),
        ("../facets/instructions/review.md", 7),  # shown as the piece is: beside it
    ]
    assert all(d.severity == "warning" for d in diags)


def test_placeholders_in_code_and_fill_ins_are_not_flagged() -> None:
    text = "Run `gh pr view {number}`.\n| {id} | {N} |\n```\n{topic}\n```\n{Decision} { value } {}"
    seed = (PIECE_VARIABLES, PIECE_PREFIXES)  # seed 004's
    # line 2 is a form to fill ({N}): {id} is its field too
    assert list(unknown_placeholders(text + "\nfor {id}", *seed)) == [("{id}", 7)]
    assert list(unknown_placeholders("{{task}} and {{name}} and ${name}", *seed)) == []


# -- diagnostics placed in the outline -----------------------------------------------


def test_diagnostics_are_assigned_to_their_movement(tmp_path: Path) -> None:
    path = write_piece(tmp_path, UNREACHABLE)
    loaded = load_file(path)
    assert loaded.yaml is not None and isinstance(loaded.doc, Piece)
    diags = lint_file(path, None, "p.yaml")
    sections = outline(build_graph(loaded.doc))
    placed = assign_diagnostics(sections, loaded.yaml.line_of, list(loaded.data), diags)
    assert [d.code for d in placed["movement:orphan"]] == ["unreachable-movement"]
    assert placed["movement:a"] == [] and placed["head"] == []
    extra = Diagnostic("p.yaml", 2, "warning", "x", "on max_movements")
    placed = assign_diagnostics(sections, loaded.yaml.line_of, list(loaded.data), [extra])
    assert placed["head"] == [extra]
