"""The files agents load (#21), global and per project, plus any file a transaction of ours
wrote; a target's rules are its Markdown bullets (outside front matter, fences, comments)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from store.ledger import Ledger
from store.read.diagnostics import DiagnosticSink
from store.read.kinds import YAML_SUFFIXES, Kind, ignored_name, kind_from_path
from store.read.textio import MAX_DOCUMENT_BYTES, NotReadable, as_text, looks_binary, read_regular
from store.read.yamlload import load_yaml
from store.workspace import Workspace, walk_files

MARKDOWN = (".md", ".markdown")


@dataclass(frozen=True, slots=True)
class TargetFile:
    """One file agents load, its project (``None``: global) and the folder it must stay in
    (a ``rules/*.md`` linked elsewhere is refused, not followed)."""

    path: Path
    kind: str
    project: Path | None = None
    #: the real folder the file was found in: a file linked out of it is not read
    within: Path | None = None

    @property
    def scope(self) -> str:
        return self.project.name if self.project is not None else "global"


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule of a target: a bullet's text (marker stripped) and its 1-based line."""

    path: Path
    line: int
    text: str


@dataclass(slots=True)
class TargetText:
    """A target as read: its text (BOM dropped), lines, stamp and rules."""

    file: TargetFile
    text: str = ""
    lines: list[str] = field(default_factory=list)
    size: int = 0
    mtime: float | None = None
    #: why it could not be read (then it has no text)
    error: str | None = None
    rules: list[Rule] = field(default_factory=list)

    @property
    def chars(self) -> int:
        return len(self.text)

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)


# -- finding them ------------------------------------------------------------------------


def _files(top: Path, suffixes: tuple[str, ...], skip: str = "") -> Iterator[Path]:
    """:func:`walk_files` under ``top``, but under a folder named ``skip``."""
    return (p for p in walk_files(top, suffixes) if skip not in p.relative_to(top).parts[:-1])


def _skills(top: Path) -> Iterator[Path]:
    try:
        names = sorted(os.listdir(top))
    except OSError:
        return
    for name in names:
        p = top / name / "SKILL.md"
        if not ignored_name(name) and p.is_file():
            yield p


def project_slug(directory: Path) -> str:
    """Claude Code's folder name for a project under ``projects/``: its absolute path with
    every ``/`` (and ``.``) made ``-``."""
    return re.sub(r"[/\\.:]", "-", str(directory))


def kind_of_name(path: Path) -> str:
    """A Markdown target's kind by its name (and folder)."""
    name = path.name
    if name in ("CLAUDE.md", "CLAUDE.local.md"):
        return "claude_md"
    if name == "MEMORY.md":
        return "memory_md"
    if name == "AGENTS.md":
        return "agents_md"
    if name == "SKILL.md":
        return "skill_md"
    if "rules" in path.parts[-4:-1]:
        return "rules"
    return "markdown"


def list_targets(ws: Workspace, ledger: Ledger | None = None) -> list[TargetFile]:
    """Every target the workspace can see, each once, in a stable order."""
    out: dict[Path, TargetFile] = {}
    projects = [Path(os.path.abspath(os.path.expanduser(p))) for p in ws.config.projects]
    by_slug = {project_slug(p): p for p in projects}
    by_name = {p.name: p for p in projects}

    def add(path: Path, kind: str, project: Path | None = None, inside: Path | None = None) -> None:
        """``inside``: the folder the file must really be in (its link is not followed out)."""
        path = Path(os.path.abspath(path))
        if path not in out and path.is_file():
            within = Path(os.path.realpath(inside)) if inside is not None else None
            out[path] = TargetFile(path, kind, project, within)

    root = ws.root
    add(root / "CLAUDE.md", "claude_md")
    add(root / "AGENTS.md", "agents_md")
    for p in _files(root / "rules", MARKDOWN):
        add(p, "rules", inside=root / "rules")
    for p in _skills(root / "skills"):
        add(p, "skill_md", inside=p.parent)  # a skill's folder may be linked in whole
    try:
        slugs = sorted(os.listdir(root / "projects"))
    except OSError:
        slugs = []
    for slug in slugs:
        memory = root / "projects" / slug / "memory"
        add(memory / "MEMORY.md", "memory_md", by_slug.get(slug), memory)
    for proj in projects:
        for name in ("CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md"):
            add(proj / name, "claude_md", proj)
        add(proj / "AGENTS.md", "agents_md", proj)
        for p in _files(proj / ".claude" / "rules", MARKDOWN):
            add(p, "rules", proj, proj / ".claude" / "rules")
        for p in _skills(proj / ".claude" / "skills"):
            add(p, "skill_md", proj, p.parent)
    for kb in ws.locations["knowledge_base"]:
        for p in _files(kb, YAML_SUFFIXES, "inbox"):
            rel = p.relative_to(kb)
            if kind_from_path(Path("knowledge_base") / rel) is Kind.SKILL:
                pid = rel.parts[1] if rel.parts[0] == "projects" and len(rel.parts) > 2 else None
                add(p, "skill_yaml", by_name.get(pid) if pid else None)
    for mem in ws.locations["memory"]:
        for p in _files(mem, YAML_SUFFIXES, "inbox"):
            if p.name.startswith("project_memory."):
                add(p, "project_memory", by_name.get(p.parent.name))
    for path in written_by_us(ws, ledger):
        if path in out or not path.is_file():
            continue
        found = ws.found(path)
        if found is not None:
            if found.kind is Kind.SKILL:
                add(path, "skill_yaml")
            elif found.kind is Kind.MEMORY:
                add(path, "project_memory")
        elif path.suffix.lower() in MARKDOWN:
            owner = next((p for p in projects if p in path.parents), None)
            add(path, kind_of_name(path), owner)
    return list(out.values())


#: The actions whose files are targets (a promotion, an approved proposal, a merge).
TARGET_ACTIONS = frozenset({"promote", "approve", "decide", "merge-duplicates"})


def ws_path(ws: Workspace, raw: object) -> Path | None:
    """A path a ledger line names, absolute (relative ones are under the workspace root)."""
    if not isinstance(raw, str) or not raw:
        return None
    p = Path(raw)
    return Path(os.path.abspath(p if p.is_absolute() else ws.root / p))


def _tx_paths(ws: Workspace, ledger: Ledger) -> Iterator[tuple[Path, str, str]]:
    """(absolute path, action, time) of every file a committed transaction wrote."""
    for raw, action, at in ledger.written():
        if (p := ws_path(ws, raw)) is not None:
            yield p, action, at


def written_by_us(ws: Workspace, ledger: Ledger | None = None) -> list[Path]:
    """Files a promotion, an approved proposal or a merge wrote (those that exist)."""
    led = ledger if ledger is not None else Ledger(ws.state_dir)
    return list(dict.fromkeys(p for p, action, _ in _tx_paths(ws, led) if action in TARGET_ACTIONS))


def last_written(ws: Workspace, ledger: Ledger | None = None) -> dict[Path, str]:
    """When hurikaeri last wrote each file (any committed transaction, undo included)."""
    led = ledger if ledger is not None else Ledger(ws.state_dir)
    out: dict[Path, str] = {}
    for key, _, at in _tx_paths(ws, led):
        if at > out.get(key, ""):
            out[key] = at
    return out


# -- reading them ------------------------------------------------------------------------

#: Tokens a character costs in unspaced scripts, measured on real files
#: (``benchmarks/token_ratios.py``); others: about four characters a token.
SCRIPT_COSTS: dict[str, tuple[re.Pattern[str], float]] = {
    "hangul": (re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]"), 1.65),
    "kana": (re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]"), 1.05),
    "han": (
        re.compile(
            r"[\u2e80-\u2fff\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uff65]"
        ),
        1.3,
    ),
}
_WIDE = re.compile(r"[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


def estimate_tokens(text: str) -> int:
    """An estimate of the tokens ``text`` costs an agent (runs of spaces count little)."""
    if not text:
        return 0
    other = len(text) - (len(text) - len(" ".join(text.split())))
    wide = 0.0
    if _WIDE.search(text):
        for rx, cost in SCRIPT_COSTS.values():
            n = len(rx.findall(text))
            wide += n * cost
            other -= n
    return round(wide) + (max(other, 0) + 3) // 4


_BULLET = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?(\S.*?)\s*$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def markdown_rules(lines: list[str], path: Path) -> list[Rule]:
    """Bullets of Markdown ``lines`` (not in front matter, fenced code or HTML comments)."""
    rules: list[Rule] = []
    fence: str | None = None
    comment = False
    start = 0
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() in ("---", "..."):
                start = i + 1
                break
    for i in range(start, len(lines)):
        line = lines[i]
        if fence is not None:
            m = _FENCE.match(line)
            closes = m is not None and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)
            if m is not None and closes and not line.strip()[len(m.group(1)) :].strip():
                fence = None
            continue
        if comment:
            if "-->" in line:
                comment = False
            continue
        m = _FENCE.match(line)
        if m:
            fence = m.group(1)
            continue
        stripped = line.lstrip()
        if stripped.startswith("<!--"):
            comment = "-->" not in stripped
            continue
        b = _BULLET.match(line)
        if b:
            rules.append(Rule(path, i + 1, b.group(1)))
    return rules


def _yaml_rules(t: TargetText) -> None:
    sink = DiagnosticSink(str(t.file.path))
    doc = load_yaml(t.text, sink)
    if doc is None or not isinstance(doc.data, dict):
        return
    path = t.file.path
    if t.file.kind == "project_memory":
        for i, b in enumerate(doc.data.get("learned_behaviors") or []):
            if isinstance(b, dict) and isinstance(b.get("behavior"), str):
                line = doc.line_of(["learned_behaviors", i, "behavior"]) or 1
                t.rules.append(Rule(path, line, " ".join(b["behavior"].split())))
        return
    content = doc.data.get("content")
    if not isinstance(content, str):
        return
    first = doc.line_of(["content"]) or 1
    found = markdown_rules(content.splitlines(), path)
    cursor = first - 1
    for r in found:  # the bullet's own line in the file: the next line holding its text
        at = next(
            (j for j in range(cursor, len(t.lines)) if r.text in t.lines[j]),
            None,
        )
        line = (at + 1) if at is not None else first
        cursor = at + 1 if at is not None else cursor
        t.rules.append(Rule(path, line, r.text))


def read_target(tf: TargetFile) -> TargetText:
    """A target's text and rules; a file that cannot be read has ``error`` set."""
    t = TargetText(tf)
    if tf.within is not None:
        real = Path(os.path.realpath(tf.path))
        if real.parent != tf.within and tf.within not in real.parents:
            t.error = f"links to {real}, outside {tf.within}: refused, not read"
            return t
    try:
        data, st = read_regular(tf.path, MAX_DOCUMENT_BYTES)
    except (NotReadable, OSError, ValueError) as exc:
        t.error = str(getattr(exc, "strerror", None) or exc)
        return t
    t.size, t.mtime = len(data), st.st_mtime
    if looks_binary(data):
        t.error = "binary file"
        return t
    t.text = as_text(data)
    t.lines = t.text.splitlines()
    if tf.path.suffix.lower() in MARKDOWN:
        t.rules = markdown_rules(t.lines, tf.path)
    else:
        _yaml_rules(t)
    return t
