"""Round-trip YAML editing: no-op saves are byte-identical, edits touch only their lines."""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest

from store.write.atomic import ConflictError, atomic_write
from store.write.roundtrip import EditError, YamlEditor
from tests.conftest import DEMO, SEEDS, TAKT
from tests.guards import anywhere

ALL_YAML = sorted(
    [p for p in DEMO.rglob("*.y*ml")]
    + [p for p in SEEDS.glob("*.yaml")]
    + [p for p in TAKT.rglob("*.yaml") if p.name != "broken.yaml"]
)


def test_there_is_something_to_round_trip() -> None:
    assert len(ALL_YAML) > 60


@pytest.mark.parametrize("path", ALL_YAML, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_noop_save_is_byte_identical(path: Path, tmp_path: Path) -> None:
    copy = tmp_path / path.name
    shutil.copy2(path, copy)
    editor = YamlEditor.open(copy)
    assert editor.render() == path.read_bytes()
    atomic_write(copy, editor.render(), editor.stamp, guard=anywhere)
    assert copy.read_bytes() == path.read_bytes()


def _changed_lines(before: bytes, after: bytes) -> list[str]:
    diff = difflib.ndiff(before.decode().splitlines(), after.decode().splitlines())
    return [line for line in diff if line[:1] in "+-"]


def test_one_field_edit_changes_only_its_line(tmp_path: Path) -> None:
    src = SEEDS / "kpt-20260208-001.yaml"
    p = tmp_path / src.name
    shutil.copy2(src, p)
    e = YamlEditor.open(p)
    e.set(["try", 0, "persistence_target", "section"], "## 依存関係")
    atomic_write(p, e.render(), e.stamp, guard=anywhere)
    changed = _changed_lines(src.read_bytes(), p.read_bytes())
    assert changed == ['-       section: "## パッケージ管理"', '+       section: "## 依存関係"']


def test_multiline_edit_and_new_key(tmp_path: Path) -> None:
    src = SEEDS / "kpt-20260208-001.yaml"
    p = tmp_path / src.name
    shutil.copy2(src, p)
    e = YamlEditor.open(p)
    e.set(["keep", 0, "description"], "一行目\n二行目")
    e.set(["feedback_integration", "generated_feedback_id"], "fb-20260208-001")
    out = e.render().decode()
    assert "    description: |-\n      一行目\n      二行目\n" in out
    assert out.endswith("  enabled: false\n  generated_feedback_id: fb-20260208-001\n")
    removed = [ln for ln in _changed_lines(src.read_bytes(), out.encode()) if ln.startswith("-")]
    assert removed == ['-     description: "TDDアプローチで実装し、手戻りを防げた"']


def test_crlf_bom_and_missing_final_newline_are_kept(tmp_path: Path) -> None:
    p = tmp_path / "x.yaml"
    raw = b"\xef\xbb\xbf# comment\r\na: 1   # trailing\r\nb:\r\n  - x\r\n  - 'y'"
    p.write_bytes(raw)
    e = YamlEditor.open(p)
    assert e.render() == raw
    e.set(["a"], 2)
    assert e.render() == raw.replace(b"a: 1 ", b"a: 2 ")


def test_respelled_lines_elsewhere_are_kept(tmp_path: Path) -> None:
    p = tmp_path / "x.yaml"
    raw = b"a: null\nflow: [ 1,2 ]\nb: old\nc: ~\n"
    p.write_bytes(raw)
    e = YamlEditor.open(p)
    e.set(["b"], "new")
    assert e.render() == b"a: null\nflow: [ 1,2 ]\nb: new\nc: ~\n"


def test_list_append_keeps_indentation(tmp_path: Path) -> None:
    p = tmp_path / "m.yaml"
    shutil.copy2(SEEDS / "project_memory.yaml", p)
    e = YamlEditor.open(p)
    e.append(["learned_behaviors"], {"trigger": "t", "behavior": "b", "reason": "r"})
    out = e.render().decode()
    assert "  - trigger: t\n    behavior: b\n    reason: r\n" in out
    assert out.startswith(
        (SEEDS / "project_memory.yaml").read_text().split("known_issues")[0][:200]
    )


def test_save_refuses_when_file_changed(tmp_path: Path) -> None:
    p = tmp_path / "x.yaml"
    p.write_bytes(b"a: 1\n")
    e = YamlEditor.open(p)
    p.write_bytes(b"a: 1\nb: 2\n")
    e.set(["a"], 5)
    with pytest.raises(ConflictError):
        atomic_write(p, e.render(), e.stamp, guard=anywhere)
    assert p.read_bytes() == b"a: 1\nb: 2\n"


def test_invalid_yaml_cannot_be_edited(tmp_path: Path) -> None:
    p = tmp_path / "x.yaml"
    p.write_bytes(b"a: [unclosed\n")
    with pytest.raises(EditError):
        YamlEditor.open(p)
