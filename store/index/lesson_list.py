"""Every lesson, newest first, in a few arrays (100,000 row objects cost over 100 MB); a
head is decoded when its row is drawn. Rows are addressed by *rank*, keyed ``path:line``."""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import overload

from store.index.entries import IndexedFile
from store.index.heads import HeadTable, LessonHead
from store.index.order import LessonFilter, LessonRow
from store.read.isotime import utc_time
from store.read.kinds import Kind

PART = 4096
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
#: ``rank_of`` for a record that is not a lesson.
_NONE = 0xFFFFFFFF


class LessonList:
    """Every lesson of ``files`` (the index's lessons files): newest first, ties by id,
    backwards."""

    def __init__(self, files: Iterable[IndexedFile]) -> None:
        self.paths: list[Path] = []
        self._tables: list[HeadTable] = []
        self._file_no: dict[str, int] = {}
        #: where each file's records start among all (one more: the end)
        self._base: array[int] = array("I", [0])
        self._line: array[int] = array("I")
        #: type, category, project, as codes into ``values`` (0: none)
        self.values: list[str | None] = [None]
        codes: dict[str | None, int] = {None: 0}
        #: tags, as codes into ``tag_sets`` (0: none)
        self.tag_sets: list[tuple[str, ...] | None] = [None]
        tag_codes: dict[tuple[str, ...] | None, int] = {None: 0}
        flat: array[int] = array("I")
        typ, cat, proj, tags = array("I"), array("I"), array("I"), array("I")
        day, idh = array("i"), array("q")
        times: array[int] = array("q")  # microseconds since 1970 (exact, any year)
        ids: list[str] = []

        def code(v: str | None) -> int:
            c = codes.get(v)
            if c is None:
                c = codes[v] = len(self.values)
                self.values.append(v)
            return c

        for f in files:
            if f.kind is not Kind.LESSONS or f.records is None:
                continue
            table = f.records
            n = len(table)
            base = self._base[-1]
            self._file_no[str(f.path)] = len(self.paths)
            self.paths.append(f.path)
            self._tables.append(table)
            self._base.append(base + n)
            for start in range(0, n, PART):
                for i, h in enumerate(table.heads(start, start + PART), base + start):
                    self._line.append(h.span.line)
                    if not isinstance(h, LessonHead):
                        continue
                    t = utc_time(h.date)
                    times.append((t - _EPOCH) // _MICROSECOND)
                    ids.append(h.id or "")
                    flat.append(i)
                    typ.append(code(h.type))
                    cat.append(code(h.category))
                    proj.append(code(h.project))
                    tc = tag_codes.get(h.tags)
                    if tc is None:
                        tc = tag_codes[h.tags] = len(self.tag_sets)
                        self.tag_sets.append(h.tags)
                    tags.append(tc)
                    day.append(t.date().toordinal())
                    idh.append(hash(h.id or ""))
            table.release()  # its pages read (a mapped table): given back
        # newest first, then the id, both backwards: two stable sorts, by id then by time
        order = sorted(range(len(ids)), key=ids.__getitem__, reverse=True)
        del ids
        order.sort(key=times.__getitem__, reverse=True)
        del times

        def permuted(a: array[int]) -> array[int]:
            return array(a.typecode, map(a.__getitem__, order))

        self._flat = permuted(flat)
        self._type, self._category, self._project = permuted(typ), permuted(cat), permuted(proj)
        self._tags, self._day, self._idh = permuted(tags), permuted(day), permuted(idh)
        self._rank_of = array("I", [_NONE]) * self._base[-1]
        for rank, i in enumerate(self._flat):
            self._rank_of[i] = rank

    def __len__(self) -> int:
        return len(self._flat)

    # -- one lesson ----------------------------------------------------------------

    def _where(self, rank: int) -> tuple[int, int]:
        i = self._flat[rank]
        f = bisect_right(self._base, i) - 1
        return f, i - self._base[f]

    def key(self, rank: int) -> str:
        f, _ = self._where(rank)
        return f"{self.paths[f]}:{self._line[self._flat[rank]]}"

    def row(self, rank: int) -> LessonRow:
        f, rec = self._where(rank)
        head = self._tables[f][rec]
        assert isinstance(head, LessonHead)
        line = self._line[self._flat[rank]]
        return LessonRow(f"{self.paths[f]}:{line}", head, self.paths[f], line)

    def rank(self, key: str) -> int | None:
        path, _, line_s = key.rpartition(":")
        f = self._file_no.get(path)
        if f is None or not line_s.isdigit():
            return None
        lo, hi = self._base[f], self._base[f + 1]
        i = bisect_left(self._line, int(line_s), lo, hi)
        if i >= hi or self._line[i] != int(line_s):
            return None
        rank = self._rank_of[i]
        return None if rank == _NONE else rank

    def category(self, rank: int) -> str | None:
        return self.values[self._category[rank]]

    def tags(self, rank: int) -> tuple[str, ...] | None:
        return self.tag_sets[self._tags[rank]]

    # -- what the filters offer ----------------------------------------------------

    def categories(self) -> list[str]:
        return sorted({v for c in set(self._category) if (v := self.values[c])})

    def projects(self) -> list[str]:
        return sorted({v for c in set(self._project) if (v := self.values[c])})

    # -- filtering -----------------------------------------------------------------

    def select(
        self, flt: LessonFilter, hidden: set[str] | frozenset[str] = frozenset()
    ) -> array[int]:
        """The ranks (ascending) :meth:`LessonFilter.matches` keeps, but ``hidden`` ids."""
        n = len(self)
        checks: list[tuple[array[int], set[int]]] = []
        for column, wanted in (
            (self._type, flt.type or None),
            (self._category, flt.category or None),
            (self._project, flt.project),
        ):
            if wanted is not None:
                checks.append((column, {c for c, v in enumerate(self.values) if v == wanted}))
        if flt.tag:
            tag_ok = {
                c
                for c, ts in enumerate(self.tag_sets)
                if any(flt.tag in x.casefold() for x in ts or ())
            }
            checks.append((self._tags, tag_ok))
        ranks: Iterable[int] = range(n)
        for column, ok in checks:
            if not ok:
                return array("I")
            ranks = [r for r in ranks if column[r] in ok]
        if flt.dated:
            lo = flt.since.toordinal() if flt.since is not None else None
            hi = flt.until.toordinal() if flt.until is not None else None
            day = self._day
            ranks = [
                r
                for r in ranks
                if not ((lo is not None and day[r] < lo) or (hi is not None and day[r] > hi))
            ]
        if hidden:
            hashes = {hash(h) for h in hidden}
            idh = self._idh
            ranks = [
                r
                for r in ranks
                if idh[r] not in hashes or (self.row(r).lesson.id or "") not in hidden
            ]
        return array("I", ranks)


class Shown(Mapping[str, LessonRow]):
    """The lessons a filter keeps: key → row, decoded when asked for; :attr:`keys_seq` and
    :attr:`index` give a table keys and positions without 100,000 keys in a dict."""

    def __init__(self, lessons: LessonList, ranks: array[int]) -> None:
        self.lessons = lessons
        self.ranks = ranks
        self.keys_seq = _Keys(self)
        self.index = _Index(self)

    def position(self, key: str) -> int | None:
        rank = self.lessons.rank(key)
        if rank is None:
            return None
        i = bisect_left(self.ranks, rank)
        return i if i < len(self.ranks) and self.ranks[i] == rank else None

    def __getitem__(self, key: str) -> LessonRow:
        pos = self.position(key)
        if pos is None:
            raise KeyError(key)
        return self.lessons.row(self.ranks[pos])

    def __iter__(self) -> Iterator[str]:
        return (self.lessons.key(r) for r in self.ranks)

    def __len__(self) -> int:
        return len(self.ranks)


class _Keys(Sequence[str]):
    def __init__(self, shown: Shown) -> None:
        self.shown = shown

    def __len__(self) -> int:
        return len(self.shown.ranks)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        s = self.shown
        if isinstance(index, slice):
            return [s.lessons.key(r) for r in s.ranks[index]]
        return s.lessons.key(s.ranks[index])


class _Index(Mapping[str, int]):
    def __init__(self, shown: Shown) -> None:
        self.shown = shown

    def __getitem__(self, key: str) -> int:
        pos = self.shown.position(key)
        if pos is None:
            raise KeyError(key)
        return pos

    def __iter__(self) -> Iterator[str]:
        return iter(self.shown)

    def __len__(self) -> int:
        return len(self.shown)
