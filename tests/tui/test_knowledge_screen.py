"""The knowledge-base screen: the tree, each kind of document, related skills, editing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import Markdown, OptionList, Static, Tree
from textual.widgets.tree import TreeNode

from screens.dialogs.confirm import ConfirmScreen
from screens.knowledge import KnowledgeScreen
from tests.conftest import DEMO
from tests.tui.helpers import make_app, ready, settled, until
from tui.app import HurikaeriApp

KB = Path("knowledge_base")
JWT = KB / "global/skills/jwt_auth_middleware.yaml"
REDIS = KB / "global/skills/redis_rate_limiting.yaml"
UNITY = KB / "global/skills/unity_ground_detection.yaml"
ANTI = KB / "global/anti_patterns/direct_position_manipulation.yaml"
UTC = KB / "projects/tidewater-etl/learned/utc_partitioning.yaml"


async def _open(pilot, app: HurikaeriApp, select: Path | None = None) -> KnowledgeScreen:  # type: ignore[no-untyped-def]
    await ready(pilot)
    app.push_screen(KnowledgeScreen(app.index, select))
    await pilot.pause()
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, KnowledgeScreen)
    return screen


def _labels(node: TreeNode) -> list[str]:  # type: ignore[type-arg]
    out = []
    for child in node.children:
        out.append(str(child.label))
        out += ["  " + x for x in _labels(child)]
    return out


def _leaves(screen: KnowledgeScreen) -> dict[Path, TreeNode]:  # type: ignore[type-arg]
    """The tree's documents as it shows them, by the file each opens."""
    found, todo = {}, [screen.query_one("#kb-tree", Tree).root]
    while todo:
        node = todo.pop()
        todo += node.children
        if isinstance(node.data, Path):
            found[node.data] = node
    return found


def _text(screen: KnowledgeScreen, selector: str) -> str:
    w = screen.query_one(selector, Static)
    return str(w.render()) if w.display else ""


def _md(screen: KnowledgeScreen, selector: str) -> str:
    return screen.query_one(selector, Markdown).source


async def test_tree_lists_the_knowledge_base(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app)
        tree = screen.query_one("#kb-tree", Tree)
        labels = _labels(tree.root)
        text = "\n".join(labels)
        tops = [str(c.label).split()[0] for c in tree.root.children]
        assert tops == ["global/", "groups/", "projects/", "memory/"]
        glob = [str(c.label).split()[0] for c in tree.root.children[0].children]
        assert glob == ["skills/", "patterns/", "anti_patterns/"]
        for name in (
            "jwt_auth_middleware",
            "redis_rate_limiting",
            "unity_ground_detection",
            "windows_utf8_stdio",
            "token_bucket_lua_script",
            "object_pool_projectiles",
            "direct_position_manipulation",
            "json_dumps_indent_in_jsonl",
            "phase2/",
            "code/",
            "idempotent_warehouse_loads",
            "tidewater-etl/",
            "learned/",
            "utc_partitioning",
            "pandera_lazy_validation",
            "harbor-api",
            "pixel-courier",
        ):
            assert name in text, name
        assert "prop-" not in text  # the inbox has its own screen
        # every document of the tree is a file of the index
        assert len(_leaves(screen)) == 13


async def test_selecting_a_skill_shows_its_content_and_stats(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app, demo_root / JWT)
        await until(pilot, lambda: "jose" in _md(screen, "#kb-md"))
        head = _text(screen, "#kb-head")
        assert "JWT認証ミドルウェア" in head and "jwt_auth_middleware" in head
        fields = _text(screen, "#kb-fields")
        assert "version: 2" in fields and "2026-11-02T09:30:00Z" in fields
        assert "auth middleware" in fields and "src/auth/*.ts" in fields
        assert "security_review" in fields
        after = _text(screen, "#kb-after")
        assert "times_loaded: 12" in after and "0.91 (91%)" in after and "3100" in after
        assert not screen.query_one("#kb-diags").display
        # the tree's cursor is on the file
        tree = screen.query_one("#kb-tree", Tree)
        await until(pilot, lambda: tree.cursor_node is not None)
        assert tree.cursor_node is not None and tree.cursor_node.data == demo_root / JWT


async def test_moving_in_the_tree_shows_each_document(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app)
        tree = screen.query_one("#kb-tree", Tree)
        await until(pilot, lambda: tree.cursor_node is not None)
        # the first document (the first global skill) is shown at once
        assert screen.current == demo_root / JWT
        await pilot.press("down")
        await pilot.pause()
        assert screen.current == demo_root / REDIS
        await until(pilot, lambda: "EVALSHA" in _md(screen, "#kb-md"))
        await pilot.press("enter")
        await pilot.pause()
        assert screen.focused is screen.query_one("#kb-detail")
        await pilot.press("escape")  # back to the tree, then back to the sessions
        await pilot.pause()
        assert screen.focused is tree
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, KnowledgeScreen)


async def test_following_a_related_skill(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app, demo_root / JWT)
        related = screen.query_one("#kb-related", OptionList)
        assert related.display and related.option_count == 1
        related.focus()
        related.highlighted = 0
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        assert screen.current == demo_root / REDIS
        tree = screen.query_one("#kb-tree", Tree)
        await until(
            pilot,
            lambda: tree.cursor_node is not None and tree.cursor_node.data == demo_root / REDIS,
        )
        assert "redis_rate_limiting" in _text(screen, "#kb-head")


async def test_a_missing_related_skill_is_shown_dimmed(demo_root: Path) -> None:
    path = demo_root / UTC
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "  - no_such_skill\n", encoding="utf-8")
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app, path)
        related = screen.query_one("#kb-related", OptionList)
        assert related.option_count == 2
        ok, missing = related.get_option_at_index(0), related.get_option_at_index(1)
        assert not ok.disabled and "idempotent_warehouse_loads" in str(ok.prompt)
        assert missing.disabled and "(not in the knowledge base)" in str(missing.prompt)


async def test_an_anti_pattern_shows_both_approaches(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app, demo_root / ANTI)
        await until(pilot, lambda: "AddForce" in _md(screen, "#kb-good"))
        assert "transform.position +=" in _md(screen, "#kb-bad")
        assert screen.query_one("#kb-compare").display
        bad = screen.query_one("#kb-bad-side").region
        good = screen.query_one("#kb-good-side").region
        assert bad.y == good.y and bad.right <= good.x  # side by side
        assert "Rigidbody を使用している" in _text(screen, "#kb-fields")
        after = _text(screen, "#kb-after")
        assert "壁を貫通する" in after and "0.2m の壁を貫通" in after


async def test_a_project_memory(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app, demo_root / "memory/harbor-api/project_memory.yaml")
        fields = _text(screen, "#kb-fields")
        assert "code_style" in fields and "関数は 40 行以内" in fields
        assert "CORS 設定を変更するとき → CORS_ALLOWED_ORIGINS" in fields
        assert "reason: credentials: true" in fields
        assert "EACCES" in fields and "workaround: docker context use default" in fields
        assert not screen.query_one("#kb-md").display


async def test_broken_yaml_shows_its_diagnostic_and_the_screen_works(demo_root: Path) -> None:
    broken = demo_root / KB / "global/skills/broken_skill.yaml"
    broken.write_text('skill_id: broken_skill\nname: "unclosed\ncontent: [x\n', encoding="utf-8")
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app, broken)
        tree = screen.query_one("#kb-tree", Tree)
        assert "✗" in str(_leaves(screen)[broken].label)
        diags = _text(screen, "#kb-diags")
        assert "error" in diags and "line" in diags
        await until(pilot, lambda: "unclosed" in screen.query_one("#kb-raw").text)  # type: ignore[attr-defined]
        # the rest still works
        tree.focus()
        tree.move_cursor(_leaves(screen)[demo_root / UNITY])
        await pilot.pause()
        await until(pilot, lambda: "groundMask" in _md(screen, "#kb-md"))
        assert not screen.query_one("#kb-diags").display


async def test_markup_in_documents_is_literal(demo_root: Path) -> None:
    path = demo_root / REDIS
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace(
            "name: Redis トークンバケットによるレート制限",
            'name: "[bold red]boom[/] [@click=app.quit]q[/]"',
        ),
        encoding="utf-8",
    )
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app, path)
        assert "[bold red]boom[/] [@click=app.quit]q[/]" in _text(screen, "#kb-head")
        assert "[bold red]boom[/]" in str(_leaves(screen)[path].label)


async def test_links_in_markdown_open_nothing(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = demo_root / REDIS
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace("### 原子性", "### 原子性\n  [docs](https://example.com/x)"),
        encoding="utf-8",
    )
    opened: list[str] = []
    app = make_app(demo_root)
    monkeypatch.setattr(app, "open_url", lambda url, **kw: opened.append(url))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app, path)
        md = screen.query_one("#kb-md", Markdown)
        await until(pilot, lambda: "example.com" in md.source)
        md.post_message(Markdown.LinkClicked(md, "https://example.com/x"))
        await pilot.pause()
        await pilot.pause()
    assert opened == []


async def test_edit_in_editor_saves_and_refreshes(demo_root: Path, fake_editor) -> None:  # type: ignore[no-untyped-def]
    path = demo_root / REDIS
    fake_editor("times_loaded: 4", "times_loaded: 5")
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app, path)
        await pilot.press("E")
        await until(pilot, lambda: "times_loaded: 5" in path.read_text(encoding="utf-8"))
        await until(pilot, lambda: "times_loaded: 5" in _text(screen, "#kb-after"))
        assert screen.current == path
    assert not list((demo_root / ".hurikaeri" / "edits").glob("*"))


async def test_invalid_edit_is_not_saved(demo_root: Path, fake_editor) -> None:  # type: ignore[no-untyped-def]
    path = demo_root / REDIS
    before = path.read_bytes()
    fake_editor("version: 1", "version: [1")
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot, app, path)
        await pilot.press("E")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")  # do not reopen: discard
        await pilot.pause()
        assert isinstance(app.screen, KnowledgeScreen)
    assert path.read_bytes() == before
    assert not list((demo_root / ".hurikaeri" / "edits").glob("*"))


async def test_workspace_changes_keep_the_selection(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app, demo_root / REDIS)
        new = demo_root / KB / "global/skills/aaa_new_skill.yaml"
        new.write_text(
            "skill_id: aaa_new_skill\nname: New\ncontent: hello\nrelated_skills: []\n",
            encoding="utf-8",
        )
        await app.apply_changes({new})
        await pilot.pause()
        await pilot.pause()
        assert new in _leaves(screen)
        assert screen.current == demo_root / REDIS
        tree = screen.query_one("#kb-tree", Tree)
        await until(
            pilot,
            lambda: tree.cursor_node is not None and tree.cursor_node.data == demo_root / REDIS,
        )


# -- snapshot ---------------------------------------------------------------------------

SNAP_ROOT = Path("/tmp/hurikaeri-snapshot-kb/demo")


def _snap_app() -> HurikaeriApp:
    if SNAP_ROOT.exists():
        shutil.rmtree(SNAP_ROOT)
    shutil.copytree(DEMO, SNAP_ROOT)
    return make_app(SNAP_ROOT)


def _snap_open(rel: Path):  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        app = pilot.app
        app.push_screen(KnowledgeScreen(app.index, SNAP_ROOT / rel))
        await pilot.pause()
        screen = app.screen
        await until(
            pilot,
            lambda: bool(
                screen.query_one("#kb-md", Markdown).source
                or screen.query_one("#kb-good", Markdown).source
            ),
        )
        await settled(pilot)

    return run_before


def test_knowledge_screen_snapshot(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(_snap_app(), terminal_size=(120, 40), run_before=_snap_open(JWT))


def test_knowledge_screen_anti_pattern_snapshot(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(_snap_app(), terminal_size=(120, 40), run_before=_snap_open(ANTI))
