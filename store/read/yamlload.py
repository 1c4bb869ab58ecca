"""Safe, bounded YAML with line numbers: ruamel's C parser composes, our walk builds plain
values (no tagged objects, bounded aliases, duplicate keys reported, timestamps as text)."""

from __future__ import annotations

import contextlib
import functools
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.reader import Reader, ReaderError
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.tag import Tag

from store.read.diagnostics import DiagnosticSink

try:  # the C extension (ruamel.yaml.clib, behind ruamel's cyaml): required for speed,
    # checked at start-up by the CLI
    from ruamel.yaml import cyaml  # noqa: F401

    C_LOADER_AVAILABLE = True
except ImportError:  # pragma: no cover - depends on the installation
    C_LOADER_AVAILABLE = False

#: Upper bound on the number of values a document expands to (alias bombs).
MAX_EXPANDED_NODES = 200_000
MAX_DEPTH = 200

_STD = "tag:yaml.org,2002:"
_PLAIN_TAGS = frozenset(
    _STD + t for t in ("map", "seq", "str", "int", "float", "bool", "null", "timestamp")
)
_local = threading.local()


class _Resolver(VersionedResolver):
    """YAML 1.2 without ruamel's per-scalar version lookup (an exception caught per scalar,
    a tenth of the parse; with the C parser it is always the loader's)."""

    def __init__(self, version: Any = None, loader: Any = None, loadumper: Any = None) -> None:
        super().__init__(version, loader, loadumper)
        self._asked_version = self.get_loader_version(version)

    @property
    def processing_version(self) -> Any:
        return self._asked_version or (1, 2)

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        """The base class's resolution, returning one shared tag object per tag (whose text
        is then worked out once, not once per scalar)."""
        if kind is ScalarNode and implicit[0]:
            table = self.versioned_resolver
            for tag, regexp in table.get(value[0] if value else "", []) + table.get(None, []):
                if regexp.match(value):
                    return _shared_tag(tag)
            implicit = (False, implicit[1])
        return super().resolve(kind, value, implicit)


@functools.cache
def _shared_tag(suffix: str) -> Tag:
    return Tag(suffix=suffix)


def _yaml() -> YAML:
    y: YAML | None = getattr(_local, "yaml", None)
    if y is None:
        y = YAML(typ="safe", pure=not C_LOADER_AVAILABLE)
        if C_LOADER_AVAILABLE:
            y.Resolver = _Resolver
        _local.yaml = y
    return y


Loc = Sequence[str | int]


@dataclass(slots=True)
class YamlDoc:
    """Plain data plus the node tree it came from (for line lookups)."""

    data: Any
    root: Node | None

    def line_of(self, loc: Loc) -> int | None:
        """1-based line of the value at ``loc`` (or of the deepest existing parent)."""
        return self._walk(loc)[1]

    def node_at(self, loc: Loc) -> Node | None:
        """The node of the value at ``loc`` (``None``: there is none)."""
        return self._walk(loc)[0]

    def _walk(self, loc: Loc) -> tuple[Node | None, int | None]:
        """The node at ``loc`` (``None``: missing) and its line (of its key in a mapping),
        or of the deepest existing parent."""
        node = self.root
        if node is None:
            return None, None
        line: int = node.start_mark.line + 1
        for part in loc:
            if isinstance(node, MappingNode):
                for k, v in node.value:
                    if isinstance(k, ScalarNode) and k.value == str(part):
                        line = k.start_mark.line + 1
                        node = v
                        break
                else:
                    return None, line
            elif isinstance(node, SequenceNode) and isinstance(part, int):
                if 0 <= part < len(node.value):
                    node = node.value[part]
                    line = node.start_mark.line + 1
                else:
                    return None, line
            else:
                return None, line
        return node, line


class _TooLarge(Exception):
    pass


class _Builder:
    def __init__(self, sink: DiagnosticSink, constructor: Any, shared: bool = True) -> None:
        self.sink = sink
        self.c = constructor
        self.count = 0
        self.sizes: dict[int, int] = {}
        #: whether nodes may be shared (the text has anchors); without, the tree is as
        #: big as the text and has no cycles, so neither needs checking node by node
        self.shared = shared

    def size(self, node: Node, depth: int = 0) -> int:
        """Expanded size of a node, memoised per node, so alias bombs are measured cheaply."""
        key = id(node)
        got = self.sizes.get(key)
        if got is not None:
            return got
        if depth > MAX_DEPTH:
            return MAX_EXPANDED_NODES + 1
        self.sizes[key] = 1  # a recursive alias counts once here; build() rejects it
        total = 1
        if isinstance(node, MappingNode | SequenceNode):
            pairs = isinstance(node, MappingNode)
            for child in (c for kv in node.value for c in kv) if pairs else node.value:
                total += self.size(child, depth + 1)
                if total > MAX_EXPANDED_NODES:
                    break
        self.sizes[key] = total
        return total

    def build(self, node: Node, active: frozenset[int] = frozenset(), depth: int = 0) -> Any:
        line = node.start_mark.line + 1
        tag = node.tag or ""
        if isinstance(node, ScalarNode):
            return self.scalar(node, tag, line)
        if depth > MAX_DEPTH:
            raise _TooLarge
        if self.shared:
            if id(node) in active:
                self.sink.error("yaml-recursive-alias", "an alias refers to its own ancestor", line)
                return None
            active = active | {id(node)}
        depth += 1
        if tag not in _PLAIN_TAGS:
            self.unknown_tag(tag, line)
        if isinstance(node, SequenceNode):
            return [self.build(v, active, depth) for v in node.value]
        if isinstance(node, MappingNode):
            out: dict[Any, Any] = {}
            for k, v in node.value:
                if tag == _STD + "map" and k.tag == _STD + "merge":
                    merged = self.build(v, active, depth)
                    for m in merged if isinstance(merged, list) else [merged]:
                        if isinstance(m, dict):
                            for mk, mv in m.items():
                                out.setdefault(mk, mv)
                    continue
                key = self.build(k, active, depth)
                if isinstance(key, (list, dict)):
                    self.sink.error(
                        "yaml-complex-key",
                        "a mapping key must be a plain value",
                        k.start_mark.line + 1,
                    )
                    continue
                if key in out:
                    self.sink.error(
                        "yaml-duplicate-key",
                        f"key {key!r} appears more than once in this mapping; the last value is used",
                        k.start_mark.line + 1,
                    )
                out[key] = self.build(v, active, depth)
            return out
        return None  # pragma: no cover - no other node kinds exist

    def unknown_tag(self, tag: str, line: int) -> None:
        self.sink.warning(
            "yaml-tag",
            f"YAML tag {tag!r} is not constructed; the value is read as plain data",
            line,
        )

    def scalar(self, node: ScalarNode, tag: str, line: int) -> Any:
        value: str = node.value
        if tag == _STD + "str" or tag == _STD + "timestamp":
            return value
        if tag == _STD + "null":
            return None
        try:
            if tag == _STD + "int":
                return self.c.construct_yaml_int(node)
            if tag == _STD + "float":
                return self.c.construct_yaml_float(node)
            if tag == _STD + "bool":
                return self.c.construct_yaml_bool(node)
        except (ValueError, YAMLError):
            return value
        self.unknown_tag(tag, line)
        return value


def _mark_line(exc: MarkedYAMLError, text: str) -> int | None:
    mark = exc.problem_mark or exc.context_mark
    if mark is None:
        return None
    last = text.count("\n") + (0 if text.endswith("\n") else 1)
    at_end = mark.line >= last or "end of stream" in (exc.problem or "")
    if at_end and exc.context_mark is not None:
        mark = exc.context_mark  # where the unfinished construct began
    line: int = mark.line + 1
    return min(line, max(last, 1))


def describe_yaml_error(exc: YAMLError, text: str) -> tuple[str, int | None]:
    if isinstance(exc, MarkedYAMLError):
        line = _mark_line(exc, text)
        parts = [p for p in (exc.context, exc.problem) if p]
        msg = "; ".join(parts) or "invalid YAML"
        if line is not None:
            lines = text.splitlines()
            if 0 < line <= len(lines) and "\t" in lines[line - 1]:
                msg += " (tabs cannot be used for indentation in YAML; use spaces)"
        return f"invalid YAML: {msg}", line
    if isinstance(exc, ReaderError):  # a character YAML forbids: its line, not an offset
        m = Reader.NON_PRINTABLE.search(text)
        line = text.count("\n", 0, m.start()) + 1 if m else None
        ch = f"#x{exc.character:04x}" if isinstance(exc.character, int) else repr(exc.character)
        return f"invalid YAML: character {ch}: {exc.reason}", line
    return f"invalid YAML: {exc}", None


# ``key: free text: with a colon`` — the commonest mistake in model-written YAML.
_COLON_VALUE = re.compile(r"^(\s*(?:- +)?[\w.-]+:[ \t]+)([^\s'\"\[{|>&*!#%@`][^#]*?: .*?)\s*$")


def repair_colons(text: str) -> tuple[str, list[int]]:
    """Quote plain values that contain ``": "``; returns the text and the repaired lines."""
    out = []
    fixed = []
    for n, line in enumerate(text.split("\n"), 1):
        m = _COLON_VALUE.match(line)
        if m:
            value = m.group(2).replace("\\", "\\\\").replace('"', '\\"')
            line = f'{m.group(1)}"{value}"'
            fixed.append(n)
        out.append(line)
    return "\n".join(out), fixed


def _compose(text: str) -> Node | None:
    y = _yaml()
    try:
        return y.compose(text)  # type: ignore[no-any-return]
    finally:
        with contextlib.suppress(Exception):  # cleanup only
            y.constructor.composer.dispose()


def load_yaml(text: str, sink: DiagnosticSink) -> YamlDoc | None:
    """One YAML document, ``None`` (with a diagnostic) when unparsable; plain values holding
    ``": "`` are read as text, each line a warning."""
    if text.startswith("\ufeff"):
        text = text[1:]
    y = _yaml()
    try:
        root = _compose(text)
    except YAMLError as exc:
        repaired, lines = repair_colons(text)
        root = None
        if lines:
            try:
                root = _compose(repaired)
            except YAMLError:
                root = None
        if root is None:
            msg, line = describe_yaml_error(exc, text)
            sink.error("yaml-syntax", msg, line)
            return None
        for n in lines:
            sink.warning(
                "yaml-colon-in-value",
                "this value contains ': ', which YAML does not allow unquoted; it was read as "
                "text (quote it to silence this)",
                n,
            )
    except (RecursionError, MemoryError):
        sink.error("yaml-too-deep", f"the document nests deeper than {MAX_DEPTH} levels")
        return None
    if root is None:
        return YamlDoc(None, None)
    builder = _Builder(sink, y.constructor, shared="&" in text)
    try:
        if builder.shared and builder.size(root) > MAX_EXPANDED_NODES:
            raise _TooLarge
        data = builder.build(root)
    except _TooLarge:
        sink.error(
            "yaml-too-large",
            f"the document expands to more than {MAX_EXPANDED_NODES:,} values "
            "(aliases repeated too often); it is not loaded",
            root.start_mark.line + 1,
        )
        return None
    except RecursionError:
        sink.error("yaml-too-deep", f"the document nests deeper than {MAX_DEPTH} levels")
        return None
    return YamlDoc(data, root)
