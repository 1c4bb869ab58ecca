"""Round-trip YAML editing that changes only what was edited (principle 1): a no-op save is
byte-identical; line endings, a BOM and the final newline are kept."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    FoldedScalarString,
    LiteralScalarString,
    ScalarString,
    SingleQuotedScalarString,
)
from ruamel.yaml.util import load_yaml_guess_indent

from store.errors import cannot_read
from store.read.textio import MAX_DOCUMENT_BYTES, FileStamp
from store.write.atomic import WriteError
from store.write.linemerge import merge_edit

_WIDTH = 1 << 30


class EditError(WriteError):
    """The file cannot be edited (it does not parse, or the path does not exist)."""


def _rt_yaml(mapping: int, sequence: int, offset: int) -> YAML:
    y = YAML(typ="rt")
    y.preserve_quotes = True
    y.width = _WIDTH
    y.allow_duplicate_keys = False
    y.indent(mapping=mapping, sequence=sequence, offset=offset)
    return y


def _dump(y: YAML, data: Any) -> str:
    buf = io.StringIO()
    y.dump(data, buf)
    return buf.getvalue()


class YamlEditor:
    """One YAML file opened for editing: ``data`` is ruamel's commented document."""

    def __init__(self, path: Path, raw: bytes, stamp: FileStamp | None) -> None:
        self.path = path
        self.stamp = stamp
        self.original_bytes = raw
        self.bom = raw.startswith(b"\xef\xbb\xbf")
        text = raw[3:].decode("utf-8") if self.bom else raw.decode("utf-8")
        self.crlf = "\r\n" in text
        self.final_newline = text.endswith("\n") or not text
        text = text.replace("\r\n", "\n")
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        try:
            _, seq_indent, offset = load_yaml_guess_indent(text)
        except YAMLError as exc:
            raise EditError(f"{path}: cannot edit a file that is not valid YAML ({exc})") from exc
        except Exception:  # noqa: BLE001 - the guesser trips on some valid files
            seq_indent, offset = None, None
        guessed = (max(seq_indent or 2, (offset or 0) + 2), offset or 0)
        layouts = [(m, *guessed) for m in (2, 4)]
        layouts += [(m, s, o) for m in (2, 4) for s, o in ((2, 0), (4, 2), (2, 2), (4, 0))]
        best: tuple[int, YAML, Any, list[str]] | None = None
        for mapping, seq, off in dict.fromkeys(layouts):  # the guess first, then the usual ones
            y = _rt_yaml(mapping, seq, off)
            try:
                data = y.load(text)
            except YAMLError as exc:
                raise EditError(
                    f"{path}: cannot edit a file that is not valid YAML ({exc})"
                ) from exc
            base = _dump(y, data).split("\n")
            if base and base[-1] == "":
                base.pop()
            miss = sum(1 for a, b in zip(base, self.lines, strict=False) if a != b)
            miss += abs(len(base) - len(self.lines))
            if best is None or miss < best[0]:
                best = (miss, y, data, base)
            if miss == 0:
                break
        assert best is not None
        _, self.yaml, self.data, self.base = best

    @classmethod
    def open(cls, path: Path) -> YamlEditor:
        try:
            raw = path.read_bytes()
            st = path.stat()
        except OSError as exc:
            raise EditError(cannot_read(path, exc)) from exc
        if len(raw) > MAX_DOCUMENT_BYTES:
            raise EditError(f"{path}: too large to edit")
        try:
            return cls(path, raw, FileStamp.of_bytes(raw, st))
        except UnicodeDecodeError as exc:
            raise EditError(f"{path}: not UTF-8 text; it is not edited") from exc

    def get(self, loc: Sequence[str | int], default: Any = None) -> Any:
        cur = self.data
        for part in loc:
            try:
                cur = cur[part]
            except (KeyError, IndexError, TypeError):
                return default
        return cur

    def set(self, loc: Sequence[str | int], value: Any) -> None:
        """Set the value at ``loc``, creating missing mappings on the way."""
        if not loc:
            raise EditError("cannot replace the whole document")
        cur = self.data
        for part in loc[:-1]:
            nxt = cur.get(part) if isinstance(cur, dict) else cur[part]
            if nxt is None:
                nxt = CommentedMap()
                cur[part] = nxt
            cur = nxt
        cur[loc[-1]] = _styled(self.get(loc), _plain_to_rt(value))

    def update(self, loc: Sequence[str | int], value: Any) -> None:
        """Make the value at ``loc`` equal ``value``, changing only what differs: unchanged
        scalars keep their quotes, comments and lines."""
        current = self.get(loc) if loc else self.data
        if isinstance(current, dict) and isinstance(value, dict):
            for key, new in value.items():
                if key in current:
                    self.update([*loc, key], new)
                else:
                    current[key] = _plain_to_rt(new)
            for key in [k for k in current if k not in value]:
                del current[key]
        elif isinstance(current, list) and isinstance(value, list):
            for i, new in enumerate(value[: len(current)]):
                self.update([*loc, i], new)
            for new in value[len(current) :]:
                current.append(_plain_to_rt(new))
            del current[len(value) :]
        elif _same(current, value):
            return
        elif loc:
            self.set(loc, value)

    def append(self, loc: Sequence[str | int], value: Any) -> None:
        seq = self.get(loc)
        if seq is None:
            self.set(loc, [value])
            return
        if not isinstance(seq, list):
            raise EditError(f"{self.path}: {'.'.join(map(str, loc))} is not a list")
        seq.append(_plain_to_rt(value))

    def delete(self, loc: Sequence[str | int]) -> None:
        parent = self.get(loc[:-1])
        if isinstance(parent, dict):
            parent.pop(loc[-1], None)
        elif isinstance(parent, list) and isinstance(loc[-1], int):
            del parent[loc[-1]]

    def render(self) -> bytes:
        edited = _dump(self.yaml, self.data).split("\n")
        if edited and edited[-1] == "":
            edited.pop()
        lines = merge_edit(self.lines, self.base, edited)
        if lines == self.lines:
            return self.original_bytes
        nl = "\r\n" if self.crlf else "\n"
        text = nl.join(lines) + (nl if self.final_newline and lines else "")
        return (b"\xef\xbb\xbf" if self.bom else b"") + text.encode("utf-8")


def _styled(old: Any, new: Any) -> Any:
    """A new string keeps the old value's quoting or block style; new multi-line text is
    written as a literal block (``|``), which is how people and agents write it."""
    if not isinstance(new, str) or isinstance(new, ScalarString):
        return new
    if isinstance(old, LiteralScalarString) or "\n" in new.rstrip("\n"):
        return LiteralScalarString(new)
    if isinstance(old, FoldedScalarString):
        return FoldedScalarString(new)
    if isinstance(old, (DoubleQuotedScalarString, SingleQuotedScalarString)) and "\n" not in new:
        return type(old)(new)
    return new


def _same(a: Any, b: Any) -> bool:
    return (
        type(a) is type(b) and a == b
        if not isinstance(a, str)
        else isinstance(b, str) and str(a) == b
    )


def plain_data(data: Any) -> Any:
    """ruamel's commented containers (or anything nested) as plain dicts, lists and scalars."""
    if isinstance(data, dict):
        return {str(k): plain_data(v) for k, v in data.items()}
    if isinstance(data, list):
        return [plain_data(v) for v in data]
    return data


def _plain_to_rt(value: Any) -> Any:
    """Plain dicts/lists become ruamel's commented types (block style when dumped)."""
    if isinstance(value, dict) and not isinstance(value, CommentedMap):
        return CommentedMap((k, _plain_to_rt(v)) for k, v in value.items())
    if isinstance(value, list) and not isinstance(value, CommentedSeq):
        return CommentedSeq(_plain_to_rt(v) for v in value)
    if (
        isinstance(value, str)
        and not isinstance(value, ScalarString)
        and "\n" in value.rstrip("\n")
    ):
        return LiteralScalarString(value)
    return value


def new_yaml_document(data: dict[str, Any]) -> bytes:
    """A new YAML file in the layout agents write (2-space maps, indented ``- `` items)."""
    y = _rt_yaml(2, 4, 2)
    return _dump(y, _plain_to_rt(data)).encode("utf-8")
