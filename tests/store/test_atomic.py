"""Safe writes: atomic, conflict-checked, symlinks followed, mode kept."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from store.write.atomic import TEMP_PREFIX, ConflictError, WriteError, atomic_write, current_stamp
from tests.guards import anywhere


def test_write_replaces_when_unchanged(tmp_path: Path) -> None:
    p = tmp_path / "f.yaml"
    p.write_bytes(b"a: 1\n")
    os.chmod(p, 0o640)
    stamp = current_stamp(p)
    new = atomic_write(p, b"a: 2\n", stamp, guard=anywhere)
    assert p.read_bytes() == b"a: 2\n"
    assert stat.S_IMODE(p.stat().st_mode) == 0o640
    assert new.size == 5
    assert not [x for x in os.listdir(tmp_path) if x.startswith(TEMP_PREFIX)]


def test_conflict_when_changed_since_read(tmp_path: Path) -> None:
    p = tmp_path / "f.yaml"
    p.write_bytes(b"a: 1\n")
    stamp = current_stamp(p)
    p.write_bytes(b"a: 1\nb: 2\n")
    with pytest.raises(ConflictError, match=r"\+5 bytes"):
        atomic_write(p, b"a: 3\n", stamp, guard=anywhere)
    assert p.read_bytes() == b"a: 1\nb: 2\n"


def test_a_conflict_one_byte_longer_says_byte(tmp_path: Path) -> None:
    p = tmp_path / "f.yaml"
    p.write_bytes(b"a: 1\n")
    stamp = current_stamp(p)
    p.write_bytes(b"a: 10\n")
    with pytest.raises(ConflictError, match=r"\(\+1 byte\)"):
        atomic_write(p, b"a: 3\n", stamp, guard=anywhere)


def test_touch_without_change_is_not_a_conflict(tmp_path: Path) -> None:
    p = tmp_path / "f.yaml"
    p.write_bytes(b"a: 1\n")
    stamp = current_stamp(p)
    os.utime(p, ns=(1, 1))
    atomic_write(p, b"a: 2\n", stamp, guard=anywhere)
    assert p.read_bytes() == b"a: 2\n"


def test_deleted_and_created_files_conflict(tmp_path: Path) -> None:
    p = tmp_path / "f.yaml"
    p.write_bytes(b"x")
    stamp = current_stamp(p)
    p.unlink()
    with pytest.raises(ConflictError, match="deleted"):
        atomic_write(p, b"y", stamp, guard=anywhere)
    p.write_bytes(b"z")
    with pytest.raises(ConflictError, match="created"):
        atomic_write(p, b"y", None, guard=anywhere)


def test_symlink_is_followed_not_replaced(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_bytes(b"old\n")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    atomic_write(link, b"new\n", current_stamp(real), guard=anywhere)
    assert link.is_symlink()
    assert real.read_bytes() == b"new\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_permission_denied_is_clear_and_leaves_file(tmp_path: Path) -> None:
    d = tmp_path / "ro"
    d.mkdir()
    p = d / "f"
    p.write_bytes(b"keep")
    os.chmod(d, 0o500)
    try:
        with pytest.raises(WriteError, match="permission denied"):
            atomic_write(p, b"new", current_stamp(p), guard=anywhere)
    finally:
        os.chmod(d, 0o700)
    assert p.read_bytes() == b"keep"


def test_create_new_file_with_parents(tmp_path: Path) -> None:
    p = tmp_path / "a" / "b" / "new.yaml"
    atomic_write(p, b"x: 1\n", None, create=True, guard=anywhere)
    assert p.read_bytes() == b"x: 1\n"


@pytest.mark.parametrize(
    ("err", "text"),
    [(28, "disk is full"), (13, "permission denied"), (30, "read-only")],
)
def test_os_errors_are_clear_and_leave_the_original(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, err: int, text: str
) -> None:
    p = tmp_path / "f.yaml"
    p.write_bytes(b"original\n")
    stamp = current_stamp(p)

    def fail(*_a: object, **_k: object) -> None:
        raise OSError(err, os.strerror(err))

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(WriteError, match=text):
        atomic_write(p, b"new\n", stamp, guard=anywhere)
    monkeypatch.undo()
    assert p.read_bytes() == b"original\n"
    assert not [x for x in os.listdir(tmp_path) if x.startswith(TEMP_PREFIX)]
