"""The search index in the command palette (Ctrl+P): the search screen's index and hit
rendering, searched in a thread; a record opens through the router (:mod:`tui.navigate`)."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING

from textual.command import Hit, Hits, Provider
from textual.content import Content
from textual.markup import escape

from screens.messages import HitTarget
from store.index.workspace_index import WorkspaceIndex
from store.read.textsafe import printable
from tui.navigate import open_target

if TYPE_CHECKING:  # the search engine is imported when the palette first searches
    from store.search.engine import Hit as SearchHit

LIMIT = 8
MAX_SCORE = 1.1


class SearchProvider(Provider):
    """KPT items, lessons, skills, … matching what is typed in the palette."""

    @property
    def _index(self) -> WorkspaceIndex | None:
        index = getattr(self.app, "index", None)
        return index if isinstance(index, WorkspaceIndex) else None

    async def startup(self) -> None:
        index = self._index
        if index is not None:
            from store.search.facade import search_for

            await asyncio.to_thread(search_for(index).ensure)

    async def search(self, query: str) -> Hits:
        index = self._index
        if index is None or len(query.strip()) < 2:
            return
        from store.search.facade import search_for

        handle = search_for(index)
        if handle.index is None:
            return
        result = await asyncio.to_thread(handle.search, query, LIMIT)
        if result.error is not None:
            return
        for hit in result.hits:
            yield Hit(
                min(1.0, hit.score / MAX_SCORE),
                self._display(hit),
                partial(self._open, index, hit),
                text=hit.title,
                help=self._help(hit),
            )

    @staticmethod
    def _display(hit: SearchHit) -> Content:
        from screens.widgets.hits import HIGHLIGHT, KIND_LABELS, hit_title

        title = hit_title(hit)
        return Content.assemble(
            Content.styled(
                f"{KIND_LABELS.get(hit.kind, hit.kind)}: ", HIGHLIGHT.replace("underline ", "")
            ),
            title,
            Content.styled(f"  ×{hit.count}", "$warning") if hit.count > 1 else Content(""),
        )

    @staticmethod
    def _help(hit: SearchHit) -> str:
        from screens.widgets.literal import short_project

        rec = hit.record
        parts = [rec.id, short_project(rec.project) if rec.project else "", rec.date[:10]]
        # the palette parses help as markup: escape it, agent text stays literal
        return escape(printable(" · ".join(p for p in parts if p), keep_newlines=False))

    async def _open(self, index: WorkspaceIndex, hit: SearchHit) -> None:
        await open_target(self.app, index, HitTarget(hit))
