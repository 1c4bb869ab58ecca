"""Facets resolved as TAKT resolves them: section map, beside, project, user, built-in.

The order follows TAKT v0.33.2 (``src/infra/config/loaders/resource-resolver.ts``,
``paths.ts``) and faceted-prompting 0.1.0 (``src/resolve.ts``); the built-in names are
generated from ``tests/fixtures/takt-v0.33`` by ``tools/gen_takt_builtins.py``.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from store.check.files import lint_file
from store.check.piece_lint import facet_references, unknown_placeholders
from store.check.takt_facets import BUILTIN_DATA, builtin_facets, resolve_reference
from store.check.takt_format import WORKFLOW_VARIABLES
from store.config import Config
from store.insight.lint import lint_paths, lint_workspace
from store.models import Piece
from store.read.loader import load_file
from store.read.takt_layout import piece_dirs, piece_home
from store.workspace import Workspace
from tests.conftest import FIXTURES, REPO, TAKT


@pytest.fixture(autouse=True)
def user_takt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's TAKT directory (``$TAKT_CONFIG_DIR``, as TAKT reads it): empty, private."""
    d = tmp_path / "user-takt"
    d.mkdir()
    monkeypatch.setenv("TAKT_CONFIG_DIR", str(d))
    return d


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen", REPO / "tools/gen_takt_builtins.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def write(path: Path, text: str = "text\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# -- the built-in names ----------------------------------------------------------------


def test_builtin_names_are_generated_from_the_fixture_copy() -> None:
    gen = _generator()
    assert BUILTIN_DATA.read_text(encoding="utf-8") == gen.render(gen.collect(gen.SOURCE))
    assert gen.main(["--check"]) == 0
    data = json.loads(BUILTIN_DATA.read_text(encoding="utf-8"))
    assert data["takt_version"] == "0.33–0.60"
    facets = TAKT / "builtins/en/facets"
    for kind, names in data["languages"]["en"].items():  # v0.33's names and v0.60's
        assert {p.stem for p in (facets / kind).glob("*.md")} <= set(names)
    assert "contract-change" in data["languages"]["en"]["policies"]  # new in v0.60
    assert "contract-change" in data["languages"]["ja"]["policies"]
    bf = builtin_facets()
    assert bf.has("personas", "coder", "en") and bf.has("output-contracts", "plan", None)
    assert bf.has("personas", "coder", "ja")  # v0.33 ships the same names in ja
    assert not bf.has("personas", "no-such-persona", "en")


# -- a project's .takt/{ja,en}/ layout ---------------------------------------------------

PROJECT_PIECE = """name: feature
description: {desc}
max_movements: 12
initial_movement: plan
movements:
  - name: plan
    persona: planner
    policy: [coding, testing]
    knowledge: architecture
    instruction: project-plan
    edit: false
    output_contracts:
      report:
        - name: 00-plan.md
          format: plan
    rules:
      - condition: planned
        next: implement
  - name: implement
    persona: {coder}
    policy: coding
    instruction: implement
    edit: true
    rules:
      - condition: done
        next: COMPLETE
      - condition: blocked
        next: ABORT
"""


def project(tmp_path: Path, coder: str = "coder") -> Path:
    """``proj/.takt`` holding the same piece in en and ja, a project instruction facet in
    each language, and the files a TAKT directory has that are not pieces."""
    takt = tmp_path / "proj" / ".takt"
    for lang, desc in (("en", "Plan then build"), ("ja", "計画して実装する")):
        write(takt / lang / "pieces/feature.yaml", PROJECT_PIECE.format(desc=desc, coder=coder))
        write(takt / lang / "facets/instructions/project-plan.md", "Plan {task}.\n")
    write(takt / "config.yaml", "language: ja\nprovider: claude\n")
    write(takt / "tasks.yaml", "tasks:\n  - name: one\n")
    return takt


def test_dot_takt_layout_with_builtin_names_lints_clean(tmp_path: Path) -> None:
    takt = project(tmp_path)
    ws = Workspace(tmp_path / "root", Config(paths={"pieces": [takt]}))
    found = sorted(f.path.relative_to(takt).as_posix() for f in ws.discover())
    assert found == ["en/pieces/feature.yaml", "ja/pieces/feature.yaml"]  # not config.yaml
    assert ws.found(takt / "config.yaml") is None
    assert ws.found(takt / "ja/pieces/feature.yaml") is not None
    assert list(lint_workspace(ws)) == []
    assert list(lint_paths([takt], None)) == []  # `hurikaeri lint proj/.takt`
    path = takt / "ja/pieces/feature.yaml"
    piece = load_file(path).doc
    assert isinstance(piece, Piece)
    where = {(r.field, r.name): (r.source, r.path) for r in facet_references(piece, path)}
    assert where[("instruction", "project-plan")] == (
        "project",
        takt / "ja/facets/instructions/project-plan.md",
    )
    for ref in (("persona", "planner"), ("policy", "testing"), ("format", "plan")):
        assert where[ref] == ("built-in", None)


def test_a_facet_that_exists_nowhere_is_exactly_that_warning(
    tmp_path: Path, user_takt: Path
) -> None:
    takt = project(tmp_path, coder="ghost-coder")
    ws = Workspace(tmp_path / "root", Config(paths={"pieces": [takt]}))
    diags = list(lint_workspace(ws))
    assert sorted((Path(d.path).parts[-3], d.line, d.code, d.severity) for d in diags) == [
        ("en", 20, "unresolved-facet", "warning"),
        ("ja", 20, "unresolved-facet", "warning"),
    ]
    message = next(d.message for d in diags if "/ja/" in d.path)
    assert message.startswith("persona 'ghost-coder' resolves nowhere (looked in: personas map; ")
    for place in (
        takt / "ja/facets/personas",
        takt / "facets/personas",
        user_takt / "facets/personas",
    ):
        assert str(place) in message
    assert "TAKT v0.33–0.60 built-in personas" in message


# -- the order of the layers ------------------------------------------------------------


def test_layers_in_takts_order(tmp_path: Path, user_takt: Path) -> None:
    takt = tmp_path / "proj/.takt"
    path = write(
        takt / "pieces/p.yaml",
        "name: p\nmax_movements: 3\npersonas:\n  mapped: ../facets/personas/elsewhere.md\n"
        "movements:\n  - name: a\n    persona: coder\n    rules:\n"
        "      - condition: ok\n        next: COMPLETE\n",
    )
    piece = load_file(path).doc
    assert isinstance(piece, Piece)

    def where(name: str, field: str = "persona") -> tuple[str | None, Path | None]:
        r = resolve_reference(piece, path.parent, name, field)
        return r.source, r.path.resolve() if r.path is not None else None

    assert where("coder") == ("built-in", None)
    user = write(user_takt / "facets/personas/coder.md")
    assert where("coder") == ("user", user)
    proj = write(takt / "facets/personas/coder.md")
    assert where("coder") == ("project", proj)
    mapped = write(takt / "facets/personas/elsewhere.md")
    assert where("mapped") == ("section map", mapped)
    beside = write(takt / "pieces/local.md")
    assert where("./local.md") == ("beside", beside)
    assert where("local.md", "policy") == ("beside", beside)
    assert where("nobody") == (None, None)
    res = resolve_reference(piece, path.parent, "nobody", "policy")
    assert res.looked_in == (
        "policies map",
        str(takt / "facets/policies"),
        str(user_takt / "facets/policies"),
        "TAKT v0.33–0.60 built-in policies",
    )


def test_a_repertoire_scope_reference(tmp_path: Path, user_takt: Path) -> None:
    path = write(tmp_path / "pieces/p.yaml", "name: p\n")
    piece = Piece(name="p")
    facet = write(user_takt / "repertoire/@nrslib/kit/facets/personas/expert.md")
    res = resolve_reference(piece, path.parent, "@nrslib/kit/expert", "persona")
    assert (res.source, res.path) == ("package", facet)
    assert not resolve_reference(piece, path.parent, "@nrslib/kit/none", "persona").found


def test_where_a_piece_lives(tmp_path: Path, user_takt: Path) -> None:
    assert piece_home(TAKT / "builtins/en/pieces").layer == "built-in"
    home = piece_home(tmp_path / "p/.takt/ja/pieces/sub")
    assert (home.layer, home.lang) == ("project", "ja")
    assert home.facet_roots == (tmp_path / "p/.takt/ja/facets", tmp_path / "p/.takt/facets")
    assert piece_home(user_takt / "pieces").layer == "user"
    assert piece_home(user_takt / "repertoire/@o/r/pieces").layer == "package"
    plain = piece_home(tmp_path / "root/pieces/builtin")
    assert plain.layer == "project"
    assert plain.facet_roots == (
        tmp_path / "root/pieces/facets",
        tmp_path / "root/pieces/builtin/facets",
    )
    write(user_takt / "pieces/a.yaml")
    write(user_takt / "repertoire/@o/r/workflows/b.yaml")
    assert piece_dirs(user_takt) == [user_takt / "pieces", user_takt / "repertoire/@o/r/workflows"]
    assert piece_dirs(tmp_path / "root") == [tmp_path / "root"]


def test_user_pieces_resolve_their_own_facets_then_builtins(
    tmp_path: Path, user_takt: Path
) -> None:
    path = write(
        user_takt / "pieces/mine.yaml",
        "name: mine\nmax_movements: 3\nmovements:\n  - name: a\n    persona: my-coder\n"
        "    policy: coding\n    rules:\n      - condition: ok\n        next: COMPLETE\n",
    )
    mine = write(user_takt / "facets/personas/my-coder.md")
    assert lint_file(path, None, "mine.yaml") == []
    piece = load_file(path).doc
    assert isinstance(piece, Piece)
    refs = {r.name: (r.source, r.path) for r in facet_references(piece, path)}
    assert refs == {"my-coder": ("user", mine), "coding": ("built-in", None)}


def test_builtin_pieces_resolve_in_their_own_facets(tmp_path: Path) -> None:
    copy = tmp_path / "builtins/en"
    shutil.copytree(TAKT / "builtins/en", copy)
    path = copy / "pieces/default.yaml"
    piece = load_file(path).doc
    assert isinstance(piece, Piece)
    refs = [r for r in facet_references(piece, path) if r.inline is None]
    assert refs and {r.source for r in refs} == {"built-in"}
    assert all(r.path is not None and r.path.is_relative_to(copy / "facets") for r in refs)


def test_a_package_in_builtins_layout_resolves_takts_own_facets() -> None:
    """github:j5ik2o/takt-sdd keeps its workflows under ``builtins/<lang>/workflows`` and names
    TAKT's built-in persona ``supervisor``: TAKT finds it, so the lint says nothing."""
    path = FIXTURES / "takt-sdd/builtins/en/workflows/kiro-spec-init.yaml"
    assert list(lint_paths([path], None)) == []
    piece = load_file(path).doc
    assert isinstance(piece, Piece)
    where = {(r.field, r.name): r.source for r in facet_references(piece, path)}
    assert where[("persona", "supervisor")] == "built-in"
    assert where[("instruction", "kiro-spec-init")] == "section map"
    # a name of a version between the two fixtures (v0.48, which takt-sdd pins) counts too
    assert builtin_facets().has("instructions", "loop-monitor-ai-antipattern-fix", "en")


def test_linting_a_project_folder_leaves_other_tools_files_alone() -> None:
    """``hurikaeri lint`` on takt-sdd's ``.claude``: Claude Code's ``settings.json`` is not a
    hurikaeri format and no problem of the folder; named alone, it is said so."""
    settings = FIXTURES / "takt-sdd/.claude/settings.json"
    assert list(lint_paths([settings.parent], None)) == []
    assert [d.code for d in lint_paths([settings], None)] == ["unknown-kind"]


def test_a_first_workflow_uses_the_piece_variables_takt_then_replaced() -> None:
    """TAKT v0.34's own backend-mini (workflow keys) uses ai-fix.md's {movement_iteration},
    which TAKT 0.34–0.35 replace: no warning (it was "renamed in 0.36")."""
    assert list(lint_paths([FIXTURES / "takt-v0.34"], None)) == []


def test_a_form_to_fill_in_an_instruction_is_not_a_template_variable() -> None:
    """TAKT v0.52's own fix.md has a table row of fields to fill (``{tag}``, ``{✅ / ❌:
    reason}``): its braces are the form's; a typo elsewhere is still said."""
    assert list(lint_paths([FIXTURES / "takt-v0.52"], None)) == []
    text = "**Fix** iteration {step_iteration} of {max_step}.\n| {tag} | {分岐} |\n"
    assert list(unknown_placeholders(text, WORKFLOW_VARIABLES, ("report",))) == [("{max_step}", 1)]
    # on a form's line, a near miss of a variable is still a typo
    text = "| {tag} | {max_step} | {分岐} |\n"
    assert list(unknown_placeholders(text, WORKFLOW_VARIABLES, ("report",))) == [("{max_step}", 1)]


def test_an_agent_under_the_home_directory_is_said_to_be_looked_for_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """terraform-provider-rtx's reconcile.yaml names ``~/.takt/agents/reconcile/…``."""
    monkeypatch.setenv("HOME", str(tmp_path))
    diags = list(lint_paths([FIXTURES / "rtx-takt/.takt"], None))
    assert [d.line for d in diags] == [33, 84, 132, 177, 232]
    home = tmp_path / ".takt/agents/reconcile"
    assert f"(resolved against the home directory: {home}/reference-auditor.md)" in diags[0].message
