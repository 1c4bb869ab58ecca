"""A TAKT piece rendered: its graph with each diagnostic under its movement or monitor, its
head, its facets and its list cell."""

from __future__ import annotations

from textual.content import Content
from textual.widgets.option_list import Option

from store.check.piece_lint import FacetRef
from store.check.piece_view import PieceView
from store.check.takt_format import takt_format
from store.read.counted import counted

from .diagnostics import counts, diagnostic_line
from .literal import literal, visible

ROLE_STYLE = {
    "initial": "bold $success",
    "movement": "bold",
    "parallel": "bold $accent",
    "sub": "$accent",
    "ai": "italic $text-secondary",
    "aggregate": "bold $text-primary",
    "target": "bold",
    "complete": "bold $success",
    "abort": "bold $error",
    "loop": "bold $warning",
    "judge": "$warning",
    "warn": "bold $warning",
    "muted": "$text-muted",
    "tree": "$text-muted",
}
#: a facet field's title, where it is not the field's own name
FIELD_TITLES = {"format": "output contract"}


def graph_view(view: PieceView) -> Content:
    """The outline with each section's diagnostics under it."""
    out: list[Content] = []
    if view.doc is None:
        out.append(
            Content.styled(
                "This piece could not be read, so there is no graph; its text is on the YAML tab (3).",
                "$error",
            )
        )
        out += [diagnostic_line(d, tint=True) for d in view.diagnostics]
        return Content("\n").join(out)
    for n, section in enumerate(view.sections):
        if n > 1:
            out.append(Content(""))
        for line in section.lines:
            out.append(
                Content.assemble(
                    *[
                        literal(text, ROLE_STYLE.get(role, ""), keep_newlines=False)
                        for text, role in line
                    ]
                )
            )
        for d in view.by_section.get(section.key, []):
            out.append(diagnostic_line(d, indent="" if section.key == "head" else "   ", tint=True))
        if n == 0:
            out.append(Content(""))
    return Content("\n").join(out)


def head_view(view: PieceView) -> Content:
    doc = view.doc
    name = doc.name if doc is not None and doc.name else view.path.stem
    out = [Content.assemble(literal(name, "bold"), Content("  "), literal(view.display, "dim"))]
    if doc is not None:
        if doc.description:
            out.append(literal(doc.description, keep_newlines=False))
        movements = doc.movements or []
        fmt = takt_format(doc)  # its format and the TAKT versions that read it, in its words
        facts = [
            fmt.label,
            counted(len(movements), fmt.noun),
            f"{fmt.key('max_movements')} "
            f"{doc.max_movements if doc.max_movements is not None else '—'}",
        ]
        if doc.loop_monitors:
            facts.append(counted(len(doc.loop_monitors), "loop monitor"))
        out.append(literal(" · ".join(facts), "$text-muted"))
    errors = sum(1 for d in view.diagnostics if d.severity == "error")
    warnings = len(view.diagnostics) - errors
    if not view.diagnostics:
        out.append(Content.styled("✓ lint: no problems", "$success"))
    else:
        said = [(errors, "error", "✗", "bold $error"), (warnings, "warning", "⚠", "bold $warning")]
        parts = [
            Content.styled(f"{mark} {counted(n, what)}", style)
            for n, what, mark, style in said
            if n
        ]
        where = Content.styled("  (shown in the graph)", "$text-muted")
        out.append(Content.assemble(Content("  ").join(parts), where))
    return Content("\n").join(out)


def lint_cell(errors: int, warnings: int) -> Content:
    if not errors and not warnings:
        return Content.styled("✓", "$success")
    return counts(errors, warnings, sep=" ", bold=True)


def facet_options(view: PieceView) -> list[Option | None]:
    if view.doc is None:
        return [
            Option(Content.styled("The piece could not be read.", "$text-muted"), disabled=True)
        ]
    out: list[Option | None] = []
    owner: str | None = None
    for i, ref in enumerate(view.facets):
        if ref.owner != owner:
            owner = ref.owner
            if out:
                out.append(None)
            out.append(Option(literal(owner, "bold underline"), disabled=True))
        title = FIELD_TITLES.get(ref.field, ref.field)
        if ref.inline is not None:
            where = Content.styled("  (in the piece)", "$text-muted")
        elif ref.source is not None:  # found (a TAKT built-in may have no file here)
            where = Content.styled("  ✓", "$success")
        else:
            where = Content.styled("  ✗ not found", "bold $error")
        out.append(
            Option(
                Content.assemble(
                    Content.styled(f"  {title} ", "$accent"),
                    literal(ref.name, "bold", keep_newlines=False),
                    where,
                ),
                id=f"facet:{i}",
            )
        )
    if not out:
        out.append(
            Option(Content.styled("This piece refers to no facets.", "$text-muted"), disabled=True)
        )
    return out


def as_markdown(text: str) -> str:
    """Plain text (an inline instruction) shown as a Markdown code block, literally."""
    fence = "````" if "```" in text else "```"
    return f"{fence}text\n{visible(text)}\n{fence}"


def facet_title(ref: FacetRef) -> Content:
    """What a facet reference is and where it was found (or looked for)."""
    what = FIELD_TITLES.get(ref.field, ref.field)
    if ref.inline is not None:
        return Content.assemble(
            Content.styled(f"{what} written in the piece", "bold"),
            literal(f"  ({ref.owner})", "$text-muted", keep_newlines=False),
        )
    if ref.path is None:
        found = ref.source is not None  # a TAKT built-in: known by name, no file here
        return Content.assemble(
            Content.styled(f"{what} ", "bold"),
            literal(ref.name, "bold $accent" if found else "bold"),
            Content.styled(f"  one of the {ref.how}", "$text-muted")
            if found
            else Content.styled(" was not found, looked up in:", "$error"),
            literal("\n" + "\n".join(ref.looked_in), "dim"),
        )
    # the layer of TAKT's order it was found in, where ``how`` does not already say it
    layer = f" ({ref.source})" if ref.source in ("project", "user", "package") else ""
    return Content.assemble(
        Content.styled(f"{what} ", "bold"),
        literal(ref.name, "bold $accent"),
        Content.styled(f"  via the {ref.how}{layer}\n", "$text-muted"),
        literal(str(ref.path), "dim"),
    )
