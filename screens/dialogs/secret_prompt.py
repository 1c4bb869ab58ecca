"""The explicit override of the secret scan, asked for, never assumed (Cancel focused)."""

from __future__ import annotations

from collections.abc import Iterable

from textual.content import Content
from textual.dom import DOMNode

from screens.dialogs.confirm import ConfirmScreen
from screens.widgets.literal import literal
from store.check.secrets import SecretHit


def describe_hits(hits: Iterable[SecretHit], limit: int = 8) -> str:
    """One line per hit (masked), at most ``limit`` of them."""
    hits = list(hits)
    out = [f"• {h.describe()}" for h in hits[:limit]]
    if len(hits) > limit:
        out.append(f"• … and {len(hits) - limit} more")
    return "\n".join(out)


class SecretOverride(ConfirmScreen):
    """The yes/no question with "Cancel" focused: Enter alone never writes a secret."""

    AUTO_FOCUS = "#no"


async def confirm_secret_override(node: DOMNode, hits: Iterable[SecretHit], what: str) -> bool:
    """Ask whether to write ``what`` although it holds ``hits``; True only on an explicit yes."""
    question = Content.assemble(
        Content.styled("This looks like a secret\n", "bold $error"),
        literal(describe_hits(hits)),
        "\n\n",
        literal(
            f"Write {what} anyway? It goes into a file agents load at the start of every "
            "session, which may be committed and shared. Say yes only if it is not a real "
            "secret (a placeholder, an example); otherwise cancel and edit the text."
        ),
    )
    screen = SecretOverride(question, "Write it anyway")
    answer = await node.app.push_screen_wait(screen)
    return bool(answer)
