"""TAKT as people run it today (0.60) and before pieces (0.3): real built-ins lint true."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from screens.widgets.piece import head_view
from store.check.files import lint_file
from store.check.piece_graph import RETURN, build_graph, outline
from store.check.piece_lint import facet_references
from store.check.piece_view import load_piece_view
from store.check.takt_format import takt_format
from store.config import Config
from store.insight.lint import lint_paths, lint_workspace
from store.models import Piece
from store.models.piece import DynamicParallel, ParamRef
from store.read.loader import load_file
from store.workspace import Workspace
from tests.conftest import FIXTURES, TAKT
from tests.store.test_piece_graph import plain

TAKT60 = FIXTURES / "takt-v0.60/builtins/en"
TAKT039 = FIXTURES / "takt-v0.3.9/resources/global/en"


@pytest.fixture(autouse=True)
def no_user_takt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAKT_CONFIG_DIR", str(tmp_path / "no-user-takt"))


def piece(path: Path) -> Piece:
    doc = load_file(path).doc
    assert isinstance(doc, Piece)
    return doc


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_takt_060_builtins_lint_without_a_diagnostic() -> None:
    # before: 12 errors, 33 warnings in 20 files (steps dropped for a $param, return: read as
    # no next, parallel {fixed, pool} and rules {self, parallel} read as wrong types, no-exit
    # in the endless loop, TAKT's config and fragments of unknown kind)
    assert list(lint_paths([TAKT60.parent], None)) == []


def test_return_rules_and_the_error_outcome_of_a_call_sub_step() -> None:
    doc = piece(TAKT60 / "workflows/peer-review-suite-frontend.yaml")
    graph = build_graph(doc)
    node = graph.nodes["reviewers"]
    assert [s.name for s in node.substeps] == ["base-reviewers", "frontend-review"]
    assert [(e.target, e.returns) for e in node.edges] == [
        ("reviewers", None),
        ("COMPLETE", None),
        (RETURN, "needs_fix"),
    ]
    assert graph.no_exit() == [] and graph.unreachable() == []
    assert takt_format(doc).label == "workflow (TAKT ≥ 0.55)"  # a fragment sub-step


def test_max_steps_infinite_is_an_endless_loop_by_design() -> None:
    doc = piece(TAKT60 / "workflows/auto-improvement-loop.yaml")
    assert doc.max_steps == "infinite" and doc.max_movements == "infinite"
    graph = build_graph(doc)
    assert graph.endless and graph.no_exit() == []
    assert takt_format(doc).versions == "TAKT ≥ 0.38"


def test_dynamic_parallel_fragments_and_rule_trees() -> None:
    doc = piece(TAKT60 / "workflows/review-default.yaml")
    reviewers = next(m for m in doc.movements or [] if m.name == "reviewers")
    assert isinstance(reviewers.parallel, DynamicParallel)
    places = [at for _s, at in reviewers.substeps()]
    assert places[0] == ("parallel", "fixed", 0) and places[3] == ("parallel", "pool", 0)
    assert takt_format(doc).label == "workflow (TAKT ≥ 0.59)"  # all_steps rules
    section = next(s for s in outline(build_graph(doc)) if s.key == "movement:reviewers")
    assert plain(section.lines[:1]).endswith("parallel ×4 (dynamic: 3 fixed, a selection of 1)")
    tree = piece(TAKT60 / "workflows/experimental-review.yaml")
    node = build_graph(tree).nodes["review"]
    assert node.is_parallel and node.dynamic
    assert [r.condition for r, _at in node.movement.own_rules()] == [
        'any("error")',
        'all("approved")',
        'any("needs_fix")',
    ]
    assert node.movement.own_rules()[0][1] == ("rules", "self", 0)


def test_facet_parameters_are_kept_and_shown_as_parameters() -> None:
    path = TAKT60 / "workflows/development-core.yaml"
    doc = piece(path)
    replan = next(m for m in doc.movements or [] if m.name == "replan")
    assert replan.policy == ["contract-change", ParamRef(param="plan_policy")]
    refs = {(r.owner, r.field, r.name): r.how for r in facet_references(doc, path)}
    assert refs[("replan", "policy", "$plan_policy")] == "parameter"
    assert refs[("replan", "persona", "planner")] == "built-in facet directory"
    plan = doc.movements[0] if doc.movements else None
    assert plan is not None and plan.uses == "development-core-plan"


def test_takts_other_yaml_is_not_a_workflow(tmp_path: Path) -> None:
    root = tmp_path / "root"
    shutil.copytree(TAKT60, root / "pieces")
    ws = Workspace(root, Config())
    found = sorted(str(f.path.relative_to(root / "pieces")) for f in ws.discover())
    assert found == sorted(f"workflows/{p.name}" for p in (TAKT60 / "workflows").glob("*.yaml"))
    # before: config.yaml, workflow-categories.yaml, provider-options, facet pools and step
    # fragments were pieces missing 'name', 'movements' and 'max_movements'
    assert list(lint_workspace(ws)) == []


def test_takts_builtins_folder_whole_is_not_read_as_workflows(tmp_path: Path) -> None:
    """Found by review: TAKT's whole ``builtins/`` laid under ``pieces/`` (0.37–0.60) read
    its exec presets and a Codex skill's agent settings as broken workflows (11 errors at
    0.60). Reduced from github:nrslib/takt v0.60.0 ``builtins/exec/presets/backend.yaml``
    and ``builtins/skill-codex/agents/openai.yaml`` (MIT): the keys kept, the values ours."""
    root = tmp_path / "root"
    builtins = root / "pieces" / "builtins"
    shutil.copytree(TAKT60, builtins / "en")
    (builtins / "exec" / "presets").mkdir(parents=True)
    (builtins / "exec" / "presets" / "backend.yaml").write_text(
        "description: backend preset\nworkflow: default\nprovider: claude\n", encoding="utf-8"
    )
    (builtins / "skill-codex" / "agents").mkdir(parents=True)
    (builtins / "skill-codex" / "agents" / "openai.yaml").write_text(
        "interface:\n  display_name: takt\n  short_description: run TAKT\n", encoding="utf-8"
    )
    ws = Workspace(root, Config())
    assert [d for d in lint_workspace(ws) if d.severity == "error"] == []


SPECIAL = """\
name: adjudicated
steps:
  - name: reviewers
    rules:
      - condition: approved
        next: COMPLETE
      - when: findings.provisional.fixpoint == true
        next: NEEDS_ADJUDICATION
      - when: findings.conflicts.count > 0
        next: finding-conflict-adjudication
      - condition: needs_fix
        next: fix
  - name: fix
    rules:
      - condition: fixed
        next: reviewers
      - condition: nowhere
        next: NEEDS_REVIEW
"""


def test_special_next_values_of_workflow_versions(tmp_path: Path) -> None:
    # as TAKT's main branch routed between 0.52 and 0.53 (commit a750f34e0), reduced
    path = write(tmp_path / ".takt/workflows/adjudicated.yaml", SPECIAL)
    diags = lint_file(path, None, "adjudicated.yaml")
    assert [(d.line, d.code) for d in diags] == [(18, "unknown-movement")]
    assert "COMPLETE, ABORT, NEEDS_ADJUDICATION or finding-conflict-adjudication" in (
        diags[0].message
    )


def test_a_workflow_before_pieces_is_told_as_its_version() -> None:
    path = TAKT039 / "workflows/default.yaml"
    doc = piece(path)
    fmt = takt_format(doc)
    assert (fmt.name, fmt.versions, fmt.noun, fmt.early) == ("workflow", "TAKT ≤ 0.3", "step", True)
    assert fmt.key("max_movements") == "max_iterations" and doc.max_movements == 30
    diags = list(lint_paths([TAKT039.parent.parent], None))
    # before: mixed-takt-format and 7 unknown-report (its report: files), config.yaml linted
    assert [(Path(d.path).name, d.line, d.code) for d in diags] == [
        ("default.yaml", 88, "unresolved-facet")  # architect.md: not in the release
    ]
    assert "../agents/default/architect.md" in diags[0].message


def test_versions_of_older_pieces(tmp_path: Path) -> None:
    assert takt_format(piece(TAKT / "builtins/en/pieces/default.yaml")).label == (
        "piece (TAKT 0.12–0.33)"
    )
    early = "name: p\nmax_iterations: 5\nmovements:\n  - name: a\n    agent: ../agents/a.md\n"
    doc = piece(write(tmp_path / "pieces/p.yaml", early))
    assert takt_format(doc).label == "piece (TAKT 0.4–0.7)"
    later = early.replace("agent: ../agents/a.md", "persona: coder")
    assert takt_format(piece(write(tmp_path / "pieces/q.yaml", later))).versions == "TAKT 0.8–0.11"


FIX = """\
# Fix
Fix the findings.
## Family coverage
| family_tag | enumerated branches/inputs | covering test | status / reason |
|------------|----------------------------|---------------|-----------------|
| {tag} | {branch} | {file:line or "none"} | {✅ / ❌: reason} |
Say which fix this is: {fix_round} of {fix_limit}.
"""


def test_a_facet_placeholder_is_reported_once_on_the_facet(tmp_path: Path) -> None:
    # TAKT v0.52.0's instructions/fix.md (reduced): used by 19 of its workflows, a line gave
    # 38 warnings, one per workflow and placeholder; line 6, a form to fill, none (line 7
    # names no variable TAKT knows)
    takt = tmp_path / "proj/.takt"
    write(takt / "facets/instructions/fix.md", FIX)
    for name in ("one", "two", "three"):
        write(
            takt / f"workflows/{name}.yaml",
            f"name: {name}\nsteps:\n  - name: fix\n    instruction: fix\n"
            "    rules:\n      - condition: done\n        next: COMPLETE\n",
        )
    diags = list(lint_paths([takt], None))
    assert sorted((Path(d.path).name, d.line, d.message.split()[0]) for d in diags) == [
        ("fix.md", 7, "{fix_limit}"),
        ("fix.md", 7, "{fix_round}"),
    ]
    assert Path(diags[0].path) == takt / "facets/instructions/fix.md"
    view = load_piece_view(takt / "workflows/one.yaml", "workflows/one.yaml")
    head = [d.message for d in view.by_section["head"]]
    assert any(m.startswith("facets/instructions/fix.md line 7: {fix_round}") for m in head)


def test_the_pieces_head_says_the_format_and_versions() -> None:
    view = load_piece_view(TAKT039 / "workflows/default.yaml", "default.yaml")
    assert "workflow (TAKT ≤ 0.3) · 8 steps · max_iterations 30" in head_view(view).plain
    view = load_piece_view(TAKT / "builtins/en/pieces/default.yaml", "default.yaml")
    assert "piece (TAKT 0.12–0.33)" in head_view(view).plain


def test_problems_show_a_facets_diagnostic_with_its_file(tmp_path: Path) -> None:
    from screens.problems import as_shown_for
    from store.index.workspace_index import WorkspaceIndex

    takt = tmp_path / "root/pieces"
    write(takt / "facets/instructions/fix.md", FIX)
    for name in ("one", "two"):
        write(
            takt / f"{name}.yaml",
            f"name: {name}\nmax_movements: 3\nmovements:\n  - name: fix\n    instruction: fix\n"
            "    rules:\n      - condition: done\n        next: COMPLETE\n",
        )
    ws = Workspace(tmp_path / "root", Config())
    for _run in range(2):  # parsed, then from the index cache
        diags = list(lint_workspace(ws))
        assert (
            sorted((d.path, d.line) for d in diags)
            == [("pieces/facets/instructions/fix.md", 7)] * 2
        )
    index = WorkspaceIndex(ws)
    index.load_all()
    report = next(f for f in index.files.values() if f.path.name == "one.yaml")
    shown = [as_shown_for(d, report) for d in report.diagnostics]
    assert [(d.path, d.line) for d in shown] == [("pieces/one.yaml", None)] * 2
    assert shown[0].message.startswith("pieces/facets/instructions/fix.md line 7: {fix_round}")


def test_a_users_workflow_names_takt_060s_built_in_facets(tmp_path: Path) -> None:
    # names TAKT v0.60.0 ships and v0.33 did not (builtin-facets.txt, listed from the tag)
    path = write(
        tmp_path / "proj/.takt/workflows/mine.yaml",
        "name: mine\nsteps:\n  - name: plan\n    persona: planner\n"
        "    policy: [contract-change, design-planning]\n    knowledge: task-decomposition\n"
        "    instruction: adjudicate-review-findings\n"
        "    rules:\n      - condition: done\n        next: COMPLETE\n",
    )
    assert lint_file(path, None, "mine.yaml") == []
    refs = facet_references(piece(path), path)
    assert {r.name: r.source for r in refs}["contract-change"] == "built-in"


NAMELESS = """\
name: nameless
steps:
  - name: reviewers
    parallel:
      - uses: peer-review-frontend-reviewer
        rules: [{condition: approved}]
      - persona: coder
        rules: [{condition: approved}]
    rules:
      - condition: all("approved")
        next: COMPLETE
  - persona: coder
"""


def test_only_a_fragments_step_may_leave_its_name_out(tmp_path: Path) -> None:
    path = write(tmp_path / ".takt/workflows/nameless.yaml", NAMELESS)
    diags = lint_file(path, None, "nameless.yaml")
    assert sorted((d.line, d.code, d.message) for d in diags if d.severity == "error") == [
        (7, "missing-field", "required field 'name' is missing (expected a sub-step name)"),
        (12, "missing-field", "required field 'name' is missing (expected a unique step name)"),
    ]


def test_a_piece_with_report_and_no_agent_is_still_before_08(tmp_path: Path) -> None:
    text = "name: p\nmax_iterations: 5\nmovements:\n  - name: a\n    report: 00-plan.md\n"
    assert takt_format(piece(write(tmp_path / "pieces/r.yaml", text))).versions == "TAKT 0.4–0.7"


CONFIG_TAKT = FIXTURES / "config-takt-gate/.takt"


def test_a_command_quality_gate_is_a_gate_not_a_wrong_type() -> None:
    # keito4/config's workflow: before, "quality_gates[0]: input should be a valid string"
    assert list(lint_paths([CONFIG_TAKT], None)) == []


def test_a_command_gate_without_its_command_is_still_an_error(tmp_path: Path) -> None:
    text = (CONFIG_TAKT / "workflows/repo-maintenance.yml").read_text(encoding="utf-8")
    takt = tmp_path / ".takt"
    write(
        takt / "workflows/repo-maintenance.yml",
        text.replace("        command: bash script/run-takt-repo-maintenance.sh\n", ""),
    )
    shutil.copytree(CONFIG_TAKT / "facets", takt / "facets")
    found = [(d.line, d.severity, d.code, d.message) for d in lint_paths([takt], None)]
    assert [f[:3] for f in found] == [(27, "error", "missing-field")]
    assert "quality_gates[0].command" in found[0][3]


INLINE = FIXTURES / "takt-inline-persona/workflows/mock-no-match.yaml"


def test_a_persona_written_in_the_section_map_is_no_missing_file(tmp_path: Path) -> None:
    # before: "personas.test-coder: file You are the E2E test coder. not found" (facet-missing)
    assert list(lint_paths([INLINE], None)) == []
    piece_file = write(
        tmp_path / "workflows/gone.yaml",
        INLINE.read_text(encoding="utf-8").replace(
            "  test-coder: |\n    You are the E2E test coder.\n",
            "  test-coder: ../facets/personas/test-coder.md\n",
        ),
    )
    assert [d.code for d in lint_paths([piece_file], None)] == ["facet-missing"]
    spaced = write(  # a file name with a space is still a file (it ends in .md)
        tmp_path / "workflows/spaced.yaml",
        piece_file.read_text(encoding="utf-8").replace("test-coder.md", "senior reviewer.md"),
    )
    assert [d.code for d in lint_paths([spaced], None)] == ["facet-missing"]


def test_other_tools_files_in_a_folder_are_not_ours(tmp_path: Path) -> None:
    """keito4/config's GitHub Actions workflow under templates/workflows/ and its list of
    labels, and a tsconfig.json with comments: nothing said of them in a folder walk; a TAKT
    workflow beside them is still linted."""
    repo = tmp_path / "config"
    shutil.copytree(FIXTURES / "config-templates", repo)
    write(repo / "tsconfig.json", '{\n  // the editor reads this\n  "strict": true,\n}\n')
    # before: 2 errors on claude.yml (movements, max_movements), 1 on labels.yml, 1 JSON
    assert list(lint_paths([repo], None)) == []
    write(repo / "templates/workflows/takt.yaml", "name: x\nmovements:\n  - name: a\n")
    assert [d.path.rsplit("/", 1)[-1] for d in lint_paths([repo], None)] == ["takt.yaml"] * 2
