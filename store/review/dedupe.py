"""Merging duplicates: keep one wording of a rule, take the others out of their files, as one
transaction (``merge-duplicates``); every other byte is kept. A line no longer as read is
refused, and so is a project memory's learned behaviour (edit it in the knowledge base).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from store.errors import ReviewError, cannot_read
from store.insight.targets import Rule
from store.ledger import Ledger
from store.read.textio import MAX_DOCUMENT_BYTES, NotReadable, read_regular
from store.tx.journal import FileWrite
from store.tx.transactions import TxPlan, TxResult, apply
from store.workspace import Workspace
from store.write.policy import MARKDOWN_SUFFIXES, target
from store.write.textdiff import file_diff


@dataclass(slots=True)
class MergeFile:
    path: Path
    before: bytes
    after: bytes


@dataclass(slots=True)
class MergePlan:
    keep: Rule
    remove: list[Rule]
    files: list[MergeFile]

    def diff(self, ws: Workspace) -> str:
        return "".join(file_diff(f.before, f.after, ws.display(f.path)) for f in self.files)


def _indent(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" \t"))


def _continuation(lines: list[bytes], i: int) -> int:
    """How many lines after the bullet at ``i`` continue it (indented deeper, not blank,
    not a bullet of their own)."""
    base = _indent(lines[i])
    n = 0
    for line in lines[i + 1 :]:
        body = line.rstrip(b"\r\n")
        stripped = body.lstrip(b" \t")
        if not stripped or _indent(body) <= base or stripped[:2] in (b"- ", b"* ", b"+ "):
            break
        n += 1
    return n


def plan_merge(ws: Workspace, rules: list[Rule], keep: Rule) -> MergePlan:
    """Remove every rule but ``keep``; :class:`ReviewError` naming what stands in the way."""
    if keep not in rules:
        raise ReviewError("the rule to keep is not one of the duplicates")
    remove = [r for r in rules if r != keep]
    if not remove:
        raise ReviewError("nothing to merge: keep one rule of two or more")
    by_file: dict[Path, list[Rule]] = {}
    for r in remove:
        by_file.setdefault(r.path, []).append(r)
    files: list[MergeFile] = []
    for path, rs in by_file.items():
        suffix = path.suffix.lower()
        if suffix not in MARKDOWN_SUFFIXES and path.name.startswith("project_memory."):
            raise ReviewError(
                f"{ws.display(path)}:{rs[0].line} is a learned behaviour of a project memory; "
                "edit it in the knowledge base (K)"
            )
        try:
            data, _ = read_regular(path, MAX_DOCUMENT_BYTES)
        except (NotReadable, OSError) as exc:
            raise ReviewError(cannot_read(ws.display(path), exc)) from exc
        lines = data.splitlines(keepends=True)
        drop: set[int] = set()
        for r in rs:
            i = r.line - 1
            text = lines[i].decode("utf-8", "replace") if 0 <= i < len(lines) else ""
            if r.text not in text:
                raise ReviewError(
                    f"{ws.display(path)}:{r.line} is no longer '{r.text}'; "
                    "the file changed since it was read: look again"
                )
            n = _continuation(lines, i) if suffix in MARKDOWN_SUFFIXES else 0
            drop.update(range(i, i + n + 1))
        kept = [line for j, line in enumerate(lines) if j not in drop]
        if 0 in drop and data.startswith(b"\xef\xbb\xbf"):
            kept = [b"\xef\xbb\xbf" + (kept[0] if kept else b""), *kept[1:]]
        if kept and lines and not lines[-1].endswith(b"\n") and kept[-1].endswith(b"\n"):
            # the file had no final newline: neither has it now
            kept[-1] = kept[-1].rstrip(b"\r\n")
        files.append(MergeFile(path, data, b"".join(kept)))
    return MergePlan(keep, remove, files)


def apply_merge(ws: Workspace, plan: MergePlan, *, ledger: Ledger | None = None) -> TxResult:
    """Write the merge as one transaction (one undo)."""
    writes = []
    for f in plan.files:
        md = f.path.suffix.lower() in MARKDOWN_SUFFIXES
        writes.append(
            FileWrite(f.path, f.before, f.after, target(ws, "markdown" if md else "skill"))
        )
    subjects = [f"{ws.display(r.path)}:{r.line}" for r in plan.remove]
    tx = TxPlan("merge-duplicates", subjects, writes, note=f"kept: {plan.keep.text}")
    return apply(ws, tx, ledger=ledger)
