"""The movement graph of a TAKT piece or workflow, as TAKT's engine evaluates it
(docs/command-line.md, "Newer TAKT"): nodes are the top-level movements, edges the rules'
``next`` and the loop-monitor judges' targets (from any movement of the cycle)."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Literal

from store.check.takt_format import takt_format
from store.models.piece import (
    SPECIAL_NEXT,
    WORKFLOW_SPECIAL_NEXT,
    DynamicParallel,
    Judge,
    Loc,
    Movement,
    ParamRef,
    Piece,
    Rule,
    RuleTree,
)
from store.read.counted import counted
from store.read.diagnostics import Diagnostic

ConditionKind = Literal["tag", "ai", "all", "any", "when"]
EXITS: tuple[str, ...] = SPECIAL_NEXT
RETURN = "RETURN"  # the target of a ``return:`` rule (a callable workflow ends)
WORKFLOW_EXITS: tuple[str, ...] = (*SPECIAL_NEXT, RETURN, *WORKFLOW_SPECIAL_NEXT)
ERROR_OUTCOME = "error"

_CALL = re.compile(r"^\s*(ai|all|any)\s*\((.*)\)\s*$", re.DOTALL)
_ARG = re.compile(r'"((?:[^"\\]|\\.)*)"' + r"|'((?:[^'\\]|\\.)*)'")


@dataclass(frozen=True, slots=True)
class Condition:
    kind: ConditionKind
    text: str
    args: tuple[str, ...] = ()


def parse_condition(text: str | None) -> Condition:
    raw = (text or "").strip()
    m = _CALL.match(raw)
    if m is None:
        return Condition("tag", raw, (raw,))
    args = tuple(
        (a if a is not None and a != "" else b or "").replace('\\"', '"').replace("\\'", "'")
        for a, b in _ARG.findall(m.group(2))
    )
    if not args and m.group(2).strip():
        args = (m.group(2).strip(),)
    kind: ConditionKind = m.group(1)  # type: ignore[assignment]
    return Condition(kind, raw, args)


def outcome_texts(rule: Rule) -> set[str]:
    """What a sub-step's rule reports as its matched condition (raw, and inside ``ai()``)."""
    cond = parse_condition(rule.condition)
    texts = {cond.text}
    if cond.kind == "ai" and cond.args:
        texts.add(cond.args[0])
    return texts


@dataclass(slots=True)
class Edge:
    source: str
    target: str
    condition: Condition
    loc: Loc
    judge: int | None = None  # the loop monitor whose judge routes this way (None: a rule)
    requires_user_input: bool = False
    interactive_only: bool = False
    known: bool = True  # the target is a movement or an end
    returns: str | None = None  # the label of a ``return:`` rule


@dataclass(slots=True)
class SubStep:
    name: str
    rules: list[Rule] = field(default_factory=list)
    opaque: bool = False  # its outcomes are not in the file (a fragment's)

    @property
    def outcomes(self) -> list[str]:
        return [r.condition for r in self.rules if r.condition]


@dataclass(slots=True)
class Node:
    name: str
    index: int
    movement: Movement
    edges: list[Edge] = field(default_factory=list)
    substeps: list[SubStep] = field(default_factory=list)
    incoming: list[Edge] = field(default_factory=list)
    reachable: bool = True
    exits: frozenset[str] = frozenset()
    key: str = "movements"  # ``steps`` in a workflow

    @property
    def loc(self) -> Loc:
        return (self.key, self.index)

    @property
    def is_parallel(self) -> bool:
        rules = self.movement.rules
        return self.movement.parallel is not None or (
            isinstance(rules, RuleTree) and rules.parallel is not None
        )

    @property
    def dynamic(self) -> bool:
        return isinstance(self.movement.parallel, DynamicParallel)


@dataclass(slots=True)
class Monitor:
    index: int
    cycle: list[str]
    threshold: int | None
    judge: Judge | None
    edges: list[Edge] = field(default_factory=list)

    @property
    def loc(self) -> Loc:
        return ("loop_monitors", self.index)


@dataclass(slots=True)
class AggregateProblem:
    node: str
    loc: Loc
    code: str
    message: str


@dataclass(slots=True)
class PieceGraph:
    nodes: dict[str, Node]
    monitors: list[Monitor]
    initial: str | None
    initial_explicit: bool
    initial_known: bool
    noun: str = "movement"  # ``step`` in a workflow
    initial_key: str = "initial_movement"
    ends: tuple[str, ...] = EXITS
    workflow: bool = False
    endless: bool = False  # ``max_steps: infinite`` (TAKT ≥ 0.38): loops by design

    def unreachable(self) -> list[Node]:
        if not self.initial_known:
            return []
        return [n for n in self.nodes.values() if not n.reachable]

    def no_exit(self) -> list[Node]:
        if self.endless:
            return []
        return [n for n in self.nodes.values() if n.reachable and not n.exits]


def _edge(
    source: str,
    rule: Rule,
    loc: Loc,
    names: set[str],
    judge: int | None,
    ends: tuple[str, ...] = EXITS,
) -> Edge | None:
    target = rule.next
    if target is None and rule.return_ is not None and RETURN in ends:
        target = RETURN
    if target is None:
        return None
    cond = parse_condition(rule.condition)
    if rule.condition is None and rule.when is not None:
        cond = Condition("when", rule.when.strip(), (rule.when.strip(),))
    return Edge(
        source,
        target,
        cond,
        loc,
        judge,
        bool(rule.requires_user_input),
        bool(rule.interactive_only),
        target in names or target in ends,
        rule.return_ if target == RETURN else None,
    )


def substeps_of(mv: Movement) -> list[SubStep]:
    """A rule tree's ``parallel`` map gives the rules of the sub-steps it names (a parallel
    fragment's)."""
    tree = mv.rules.parallel if isinstance(mv.rules, RuleTree) else None
    out: list[SubStep] = []
    for j, (sub, _at) in enumerate(mv.substeps()):
        name = sub.name or (sub.uses and f"({sub.uses})") or f"#{j + 1}"
        rules = [r for r, _ in sub.own_rules()]
        if not rules and tree is not None and sub.name in tree:
            rules = list(tree[sub.name] or [])
        out.append(SubStep(name, rules, not rules and sub.uses is not None))
    if not out:  # a parallel fragment's sub-steps, named by the caller's rule tree
        for name, rules in (tree or {}).items():
            out.append(SubStep(name, list(rules or [])))
    return out


def build_graph(piece: Piece) -> PieceGraph:
    fmt = takt_format(piece)
    key = fmt.key("movements")
    ends = WORKFLOW_EXITS if fmt.is_workflow and not fmt.early else EXITS
    nodes: dict[str, Node] = {}
    for i, mv in enumerate(piece.movements or []):
        if mv.name is not None and mv.name not in nodes:
            nodes[mv.name] = Node(mv.name, i, mv, key=key)
    names = set(nodes)
    for node in nodes.values():
        mv = node.movement
        for rule, at in mv.own_rules():
            e = _edge(node.name, rule, (*node.loc, *at), names, None, ends)
            if e is not None:
                node.edges.append(e)
        node.substeps = substeps_of(mv)
    monitors: list[Monitor] = []
    for k, mon in enumerate(piece.loop_monitors or []):
        m = Monitor(k, [c for c in mon.cycle or [] if isinstance(c, str)], mon.threshold, mon.judge)
        for r, rule in enumerate((mon.judge.rules or []) if mon.judge else []):
            for member in m.cycle:
                if member not in nodes:
                    continue
                e = _edge(member, rule, ("loop_monitors", k, "judge", "rules", r), names, k, ends)
                if e is not None:
                    m.edges.append(e)
                    break  # one edge per rule is kept for display; reachability adds the rest
        monitors.append(m)
    first = next(iter(nodes), None)
    initial = piece.initial_movement if piece.initial_movement is not None else first
    graph = PieceGraph(
        nodes,
        monitors,
        initial,
        piece.initial_movement is not None,
        initial is not None and initial in nodes,
        fmt.noun,
        fmt.key("initial_movement"),
        ends,
        fmt.is_workflow and not fmt.early,
        piece.max_steps == "infinite",
    )
    _analyse(graph)
    return graph


def _successors(graph: PieceGraph) -> dict[str, set[str]]:
    succ: dict[str, set[str]] = {name: set() for name in graph.nodes}
    for node in graph.nodes.values():
        for e in node.edges:
            if e.known:
                succ[node.name].add(e.target)
            if e.target in graph.nodes:
                graph.nodes[e.target].incoming.append(e)
    for m in graph.monitors:
        targets = {e.target for e in m.edges if e.known}
        for member in m.cycle:
            if member in succ:
                succ[member] |= targets
        for e in m.edges:
            if e.target in graph.nodes:
                graph.nodes[e.target].incoming.append(e)
    return succ


def _reached(start: str, nbrs: dict[str, set[str]]) -> set[str]:
    """Every name reached from ``start`` (itself too) through ``nbrs``, breadth first."""
    seen, queue = {start}, deque([start])
    while queue:
        for n in nbrs.get(queue.popleft(), ()):
            if n not in seen:
                seen.add(n)
                queue.append(n)
    return seen


def _analyse(graph: PieceGraph) -> None:
    succ = _successors(graph)
    if graph.initial_known and graph.initial is not None:
        seen = _reached(graph.initial, succ)
        for node in graph.nodes.values():
            node.reachable = node.name in seen
    pred: dict[str, set[str]] = {}
    for src, targets in succ.items():
        for t in targets:
            pred.setdefault(t, set()).add(src)
    before = {end: _reached(end, pred) - {end} for end in graph.ends}
    for node in graph.nodes.values():
        node.exits = frozenset(end for end, names in before.items() if node.name in names)


# -- aggregate conditions ---------------------------------------------------------


def aggregate_problems(graph: PieceGraph) -> list[AggregateProblem]:
    out: list[AggregateProblem] = []
    for node in graph.nodes.values():
        for e in node.edges:
            cond = e.condition
            if cond.kind not in ("all", "any"):
                continue
            problem = partial(AggregateProblem, node.name, (*e.loc, "condition"))
            if not node.is_parallel or not node.substeps:
                message = f"{cond.text} on '{node.name}', which has no parallel sub-steps"
                out.append(problem("aggregate-outside-parallel", f"{message}: it never matches"))
                continue
            implicit = {ERROR_OUTCOME} if graph.workflow else set()
            declared = [
                set().union(implicit, *(outcome_texts(r) for r in s.rules)) for s in node.substeps
            ]
            if any(s.opaque for s in node.substeps):
                continue  # outcomes the file does not show
            if cond.kind == "all" and len(cond.args) > 1 and node.dynamic:
                continue  # the selected sub-steps are known only at run time
            unknown: list[tuple[str, list[str]]] = []  # (outcome, sub-steps without it)
            if cond.kind == "all" and len(cond.args) > 1:
                if len(cond.args) != len(node.substeps):
                    message = (
                        f"{cond.text} names {len(cond.args)} outcomes for "
                        f"{counted(len(node.substeps), 'sub-step')} "
                        f"({', '.join(s.name for s in node.substeps)}): "
                        "TAKT matches them by position, so it never matches"
                    )
                    out.append(problem("aggregate-arity", message))
                    continue
                for s, arg, have in zip(node.substeps, cond.args, declared, strict=True):
                    if arg not in have:
                        unknown.append((arg, [s.name]))
            elif cond.kind == "all":
                for arg in cond.args:
                    missing = [
                        s.name
                        for s, have in zip(node.substeps, declared, strict=True)
                        if arg not in have
                    ]
                    if missing:
                        unknown.append((arg, missing))
            else:
                for arg in cond.args:
                    if not any(arg in have for have in declared):
                        unknown.append((arg, [s.name for s in node.substeps]))
            for arg, subs in unknown:
                out.append(
                    problem("unknown-aggregate-condition", _unknown_outcome(node, cond, arg, subs))
                )
    return out


def _unknown_outcome(node: Node, cond: Condition, arg: str, subs: list[str]) -> str:
    who = (
        f"sub-step '{subs[0]}'"
        if len(subs) == 1
        else "sub-steps " + ", ".join(f"'{s}'" for s in subs)
    )
    never = " (so it never matches)" if cond.kind == "all" or len(cond.args) == 1 else ""
    return (
        f"{cond.text}: {who} of '{node.name}' {'declares' if len(subs) == 1 else 'declare'} "
        f"no outcome '{arg}'{never}"
    )


# -- drawing -------------------------------------------------------------------------

Segment = tuple[str, str]  # (text, role): the UI maps roles to styles
Line = list[Segment]


@dataclass(slots=True)
class Section:
    key: str  # ``head``, ``movement:NAME`` or ``monitor:N``
    loc: Loc
    lines: list[Line]


def _target(e: Edge, source: Node | None, graph: PieceGraph) -> list[Segment]:
    if e.target == "COMPLETE":
        return [("✔ COMPLETE", "complete")]
    if e.target == "ABORT":
        return [("✘ ABORT", "abort")]
    if e.target == RETURN:
        return [(f"↩ return {e.returns}", "complete")]
    if e.target in WORKFLOW_SPECIAL_NEXT and e.known:
        return [(e.target, "abort")]
    if not e.known:
        return [(e.target, "warn"), (f"  (no such {graph.noun})", "warn")]
    segs: list[Segment] = [(e.target, "target")]
    tgt = graph.nodes.get(e.target)
    if source is not None and tgt is not None:
        if tgt.name == source.name:
            segs.append(("  ↺ again", "muted"))
        elif tgt.index < source.index:
            segs.append(("  ↑ back", "muted"))
    return segs


def _condition(e: Edge, node: Node | None) -> list[Segment]:
    cond = e.condition
    if cond.kind == "ai":
        return [("ai ", "ai"), (f'"{cond.args[0] if cond.args else ""}"', "cond")]
    if cond.kind == "when":
        return [("when ", "ai"), (cond.text, "cond")]
    if cond.kind == "tag":
        return [(f'"{cond.text}"', "cond")]
    subs = node.substeps if node is not None else []
    if cond.kind == "all" and len(cond.args) > 1:
        segs: list[Segment] = [("all ", "aggregate")]
        for i, (sub, arg) in enumerate(zip(subs, cond.args, strict=False)):
            if i:
                segs.append((" ∧ ", "aggregate"))
            segs += [(f"{sub.name}=", "sub"), (f'"{arg}"', "cond")]
        extra = cond.args[len(subs) :]
        for a in extra:
            segs += [(" ∧ ?=", "warn"), (f'"{a}"', "cond")]
        return segs
    names = ", ".join(s.name for s in subs) or "no sub-steps"
    head = "all of" if cond.kind == "all" else "any of"
    segs = [(f"{head} ", "aggregate"), (f"[{names}]", "sub"), (": ", "aggregate")]
    for i, a in enumerate(cond.args):
        if i:
            segs.append((" | ", "aggregate"))
        segs.append((f'"{a}"', "cond"))
    return segs


def _rule_lines(edges: list[Edge], node: Node | None, graph: PieceGraph) -> list[Line]:
    out: list[Line] = []
    for i, e in enumerate(edges):
        branch = "└─ " if i == len(edges) - 1 else "├─ "
        line: Line = [(branch, "tree"), *_condition(e, node), ("  →  ", "tree")]
        line += _target(e, node, graph)
        said = (("asks the user", e.requires_user_input), ("interactive only", e.interactive_only))
        notes = [words for words, holds in said if holds]
        if notes:
            line.append((f"  ({', '.join(notes)})", "muted"))
        out.append(line)
    return out


def ref_text(value: str | ParamRef) -> str:
    return f"${value.param}" if isinstance(value, ParamRef) else value


def _facets(mv: Movement) -> str:
    parts = []
    if mv.uses:
        parts.append(f"fragment {mv.uses}")
    for label, value in (
        ("persona", mv.persona or mv.agent),
        ("policy", mv.policy),
        ("knowledge", mv.knowledge),
    ):
        if value:
            values = value if isinstance(value, list) else [value]
            parts.append(f"{label} {', '.join(ref_text(v) for v in values)}")
    instructions = mv.instruction if isinstance(mv.instruction, list) else [mv.instruction]
    for ins in instructions:
        if isinstance(ins, ParamRef) or (ins and "\n" not in ins and " " not in ins.strip()):
            parts.append(f"instruction {ref_text(ins)}")
        elif ins:
            parts.append("inline instruction")
    if mv.instruction is None and mv.instruction_template:
        parts.append("inline instruction")
    if mv.edit:
        parts.append("edits")
    if mv.team_leader is not None:
        parts.append(f"team leader ×{mv.team_leader.max_parts or '?'}")
    return " · ".join(parts)


def outline(graph: PieceGraph) -> list[Section]:
    """The graph as lines of ``(text, role)`` segments, movement by movement, then the loop
    monitors."""
    sections: list[Section] = []
    head: list[Line] = []
    noun = graph.noun
    if graph.initial is None:
        what = "workflow" if noun == "step" else "piece"
        head.append([(f"This {what} has no {noun}s.", "warn")])
    elif not graph.initial_known:
        head.append(
            [("start → ", "muted"), (graph.initial, "warn"), (f"  (no such {noun})", "warn")]
        )
    else:
        how = graph.initial_key if graph.initial_explicit else f"the first {noun}"
        head.append([("start → ", "muted"), (graph.initial, "initial"), (f"  ({how})", "muted")])
    sections.append(Section("head", (), head))
    for node in graph.nodes.values():
        lines: list[Line] = []
        mark, role = ("▶ ", "initial") if node.name == graph.initial else ("● ", "movement")
        if node.is_parallel:
            mark = "▶ ⇉ " if node.name == graph.initial else "⇉ "
        title: Line = [(mark, role), (node.name, role if not node.is_parallel else "parallel")]
        if node.is_parallel:
            title.append((f"  parallel ×{len(node.substeps)}", "parallel"))
        par = node.movement.parallel
        if isinstance(par, DynamicParallel):
            fixed, pool = len(par.fixed or []), len(par.pool or [])
            title.append((f" (dynamic: {fixed} fixed, a selection of {pool})", "parallel"))
        if not node.reachable and graph.initial_known:
            title.append(("   ⚠ unreachable", "warn"))
        elif not node.exits and not graph.endless:
            title.append(("   ⚠ no path to COMPLETE or ABORT", "warn"))
        lines.append(title)
        facets = _facets(node.movement)
        if facets:
            lines.append([("│  ", "tree"), (facets, "muted")])
        sources = sorted({e.source for e in node.incoming if e.judge is None} - {node.name})
        judged = sorted({e.judge for e in node.incoming if e.judge is not None})
        froms = [*sources, *(f"loop monitor {j + 1}" for j in judged)]
        if froms:
            lines.append([("│  ", "tree"), (f"from {', '.join(froms)}", "muted")])
        for j, sub in enumerate(node.substeps):
            branch = "└─" if j == len(node.substeps) - 1 else "├─"
            outcomes = " | ".join(f'"{o}"' for o in sub.outcomes) or "(no outcomes)"
            lines.append(
                [
                    ("│  ", "tree"),
                    (f"{branch} ", "tree"),
                    (sub.name, "sub"),
                    (": ", "tree"),
                    (outcomes, "cond"),
                ]
            )
        if not node.edges:
            lines.append(
                [("└─ ", "tree"), ("no rules: the piece cannot continue from here", "warn")]
            )
        lines += _rule_lines(node.edges, node, graph)
        sections.append(Section(f"movement:{node.name}", node.loc, lines))
    for m in graph.monitors:
        lines = []
        cycle = " ↔ ".join(m.cycle) if len(m.cycle) == 2 else " → ".join(m.cycle)
        title = [("⟲ ", "loop"), (f"loop monitor {m.index + 1}: ", "loop"), (cycle, "target")]
        if m.threshold is not None:
            title.append((f"   after {counted(m.threshold, 'cycle')}", "muted"))
        lines.append(title)
        judge = m.judge
        if judge is None:
            lines.append([("└─ ", "tree"), ("no judge", "warn")])
        else:
            who = judge.persona or "no persona"
            lines.append([("│  ", "tree"), ("judge ", "judge"), (who, "judge")])
            lines += _rule_lines(m.edges, None, graph)
        sections.append(Section(f"monitor:{m.index}", m.loc, lines))
    return sections


def assign_diagnostics(
    sections: Sequence[Section],
    line_of: Callable[[Loc], int | None],
    top_keys: Iterable[str],
    diagnostics: Iterable[Diagnostic],
) -> dict[str, list[Diagnostic]]:
    """Diagnostics by the outline section their line falls in: a section runs to the next
    one or the next top-level key; other top-level keys and line-less ones go to the head."""
    bounds: list[tuple[int, int, str]] = []
    for n, key in enumerate(top_keys):
        if key not in ("movements", "steps", "loop_monitors"):
            line = line_of((key,))
            if line is not None:
                bounds.append((line, n, "head"))
    for n, s in enumerate(sections):
        if s.key != "head":
            line = line_of(s.loc)
            if line is not None:
                bounds.append((line, 10_000 + n, s.key))
    bounds.sort()
    out: dict[str, list[Diagnostic]] = {s.key: [] for s in sections}
    for d in diagnostics:
        key = "head"
        if d.line is not None:
            for start, _n, k in bounds:
                if start <= d.line:
                    key = k
                else:
                    break
        out.setdefault(key, []).append(d)
    return out
