"""The search screen's ``evidence:`` filter: its first query checks every report's evidence
in a worker (cached under ``.hurikaeri/``), checked again when the workspace changes."""

from __future__ import annotations

from functools import partial

from textual import work
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import get_current_worker

from store.index.workspace_index import WorkspaceIndex
from store.insight.evidence_cache import EvidenceStates, evidence_for
from store.read.counted import counted
from store.search.query import Query, evidence_query, with_evidence


class EvidenceFilter(Screen[None]):
    """A screen searching ``index`` whose queries may hold an ``evidence:`` filter; its
    ``#search-status`` line says how the check goes, and :meth:`rerun` searches again."""

    index: WorkspaceIndex
    #: record id → its ``evidence:`` value, once checked (read by the search thread)
    _evidence: dict[str, str] | None = None
    #: the evidence was checked since the screen opened or the workspace last changed
    _evidence_asked = False

    def rerun(self) -> None:
        raise NotImplementedError

    def _status_text(self, text: str) -> None:
        status = self.query_one("#search-status", Static)
        status.set_class(False, "-error")
        status.update(Content.styled(text, "$text-muted"), layout=False)

    def with_evidence(self, text: str) -> str | Query | None:
        """``text`` as the search takes it: with an ``evidence:`` filter, the records it
        stands for (``None`` while they are first being checked). In the search thread."""
        query = evidence_query(text)
        if query is None:
            return text
        if not self._evidence_asked:
            self._evidence_asked = True
            self.app.call_from_thread(self.check_evidence)
        values = self._evidence
        if values is None:
            known = evidence_for(self.index).states  # checked for the sessions list, maybe
            if known is None:
                self.app.call_from_thread(self._status_text, "checking evidence…")
                return None
            values = self._evidence = known.record_values()
        return with_evidence(query, values)

    @work(thread=True, exclusive=True, group="search-evidence", exit_on_error=False)
    def check_evidence(self) -> None:
        """Every report's evidence state (cached; transcripts read where a report or its
        transcript changed): a thread."""
        worker = get_current_worker()
        progress = partial(self.app.call_from_thread, self._evidence_progress)
        states = evidence_for(self.index).update(progress, lambda: worker.is_cancelled)
        if states is not None and not worker.is_cancelled:
            self.app.call_from_thread(self.got_evidence, states)

    def _evidence_progress(self, done: int, total: int) -> None:
        if self._evidence is None:
            self._status_text(f"checking evidence… {done}/{counted(total, 'report')}")

    def got_evidence(self, states: EvidenceStates) -> None:
        self._evidence = states.record_values()
        self.rerun()
