"""A workspace's documents with their identity (:func:`scan_workspace`), read into records
in worker processes, a big JSONL file in parts (:func:`iter_parsed`).
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from stat import S_ISDIR, S_ISREG
from typing import NamedTuple

from store.read.kinds import Kind, ignored_name, kind_from_path
from store.read.takt_layout import is_support_file, piece_dirs
from store.search.index import Packed, pack
from store.search.model import Stamp
from store.workspace import RULES, Workspace


class Scan(NamedTuple):
    """The documents of a workspace: each one's identity, and its kind (:meth:`kind`)."""

    stamps: dict[str, Stamp]
    kinds: dict[str, Kind | None]
    """The kind of each document outside the knowledge base."""
    kb: dict[str, str]
    """Knowledge-base documents: the part of the path the kind is read from, when asked (a
    warm search asks for none: reading them all cost ~3 ms of its CPU at 10k)."""

    def kind(self, path: str) -> Kind | None:
        rel = self.kb.get(path)
        return self.kinds[path] if rel is None else kind_from_path(Path("knowledge_base", rel))


def scan_workspace(ws: Workspace) -> Scan:
    """Every document of ``ws`` with its kind and identity: :data:`RULES` walked on strings,
    each file stat'ed by its name in its open directory (a fifth cheaper than by path)."""
    out = Scan({}, {}, {})
    for key, suffixes, recursive, kind in RULES:
        for top in ws.locations[key]:
            if key.startswith("lessons_") and os.path.isfile(top):
                with contextlib.suppress(OSError):
                    st = os.stat(top)
                    out.stamps.setdefault(str(top), (st.st_size, st.st_mtime_ns))
                    out.kinds.setdefault(str(top), kind)
                continue
            for d in piece_dirs(top) if key == "pieces" else [top]:
                _walk(out, str(d), suffixes, recursive, kind, pieces=key == "pieces")
    return out


def _walk(
    out: Scan, top: str, suffixes: tuple[str, ...], recursive: bool, kind: Kind | None, pieces: bool
) -> None:
    """Add the files under ``top`` to ``out`` (a path already there keeps its kind; under
    a piece location, TAKT's own YAML is no piece). Names are listed, not scanned: a
    document's stat says it is a file (a fifth of the walk's CPU at 10k)."""
    base = len(os.path.join(top, ""))  # where a path's part under ``top`` starts
    stamps, kinds, kb = out
    dirs = [top]
    while dirs:
        d = os.path.join(dirs.pop(), "")
        try:
            fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            continue
        try:
            for name in os.listdir(fd):
                try:
                    # a name with a document's suffix is ignored only for its head
                    if name.lower().endswith(suffixes) and not (
                        name[:1] in ".4#" and ignored_name(name)
                    ):
                        st = os.stat(name, dir_fd=fd)
                        if S_ISREG(st.st_mode):
                            path = d + name
                            if path not in stamps and not (
                                pieces and is_support_file(Path(path), Path(top))
                            ):
                                stamps[path] = (st.st_size, st.st_mtime_ns)
                                if kind is None:
                                    kb[path] = path[base:]
                                else:
                                    kinds[path] = kind
                            continue
                    if (
                        recursive
                        and not ignored_name(name)
                        and S_ISDIR(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
                    ):
                        dirs.append(d + name)
                except OSError:
                    continue
        finally:
            os.close(fd)


# -- writing ---------------------------------------------------------------------------------


#: A summaries or lessons file bigger than twice this is parsed in parts of about this size,
#: each on its own (a worker holds one part's records, not those of a 100 MB file).
PART_BYTES = 8 << 20

_Part = tuple[int, int, int, Stamp]
"""(first byte, end, first line, the file's identity) of a part of a file."""
_Job = tuple[str, Kind | None, str, _Part | None]
Progress = Callable[[int, int], None] | None
"""Called with the files parsed and their number."""
Parsed = tuple[str, Stamp | None, Packed]
"""(path, identity, records) of a file or a part of one."""


def _parse_chunk(items: list[_Job]) -> list[Parsed]:
    from store.search.records import load_records

    out: list[Parsed] = []
    for path, kind, display, part in items:
        stamp, recs = load_records(Path(path), kind, display, part)
        out.append((path, stamp, pack(recs)))
    return out


def _parts(path: str, kind: Kind | None) -> list[_Part | None]:
    """The parts a big summaries or lessons file is parsed in (``[None]``: it whole)."""
    if kind not in (Kind.SUMMARIES, Kind.LESSONS):
        return [None]
    from store.read.jsonl import cut_points
    from store.read.textio import MAX_JSONL_BYTES, NotReadable, looks_binary, open_regular

    try:
        with open_regular(path, MAX_JSONL_BYTES) as (fh, st):
            # (a binary file: the whole file's reader says why it is not read)
            if st.st_size <= 2 * PART_BYTES or looks_binary(fh.read(8192)):
                return [None]
            cuts = cut_points(fh, st.st_size, PART_BYTES)
    except (OSError, ValueError, NotReadable):
        return [None]
    stamp = (st.st_size, st.st_mtime_ns)
    return [(s, e, line, stamp) for s, e, line in cuts] if len(cuts) > 1 else [None]


def iter_parsed(
    ws: Workspace, files: Scan, paths: list[str], progress: Progress = None
) -> Iterator[tuple[str, Stamp, Packed]]:
    """Parse files into records, in worker processes when there are many: each file's
    identity (the scan's if unread) and records (or each part's, for a big JSONL file) as
    its chunk is done, in no particular order, so that they need not all be held at once."""
    from store.index.parallel import chunk_by_size, map_chunks  # (not for a warm search)

    jobs: list[_Job] = []
    sizes: list[int] = []
    for p in paths:
        k, display = files.kind(p), ws.display(Path(p))
        parts = _parts(p, k)
        jobs += [(p, k, display, part) for part in parts]
        sizes += [part[1] - part[0] if part else files.stamps[p][0] for part in parts]
    chunks = chunk_by_size(jobs, sizes)
    left = Counter(job[0] for job in jobs)  # a file is done when all its parts are
    done = 0
    for chunk_result in map_chunks(_parse_chunk, chunks, sum(sizes), ["store.search.records"]):
        yield from ((p, st or files.stamps[p], recs) for p, st, recs in chunk_result)
        for p, _s, _r in chunk_result:
            left[p] -= 1
            done += not left[p]
        if progress is not None:
            progress(done, len(paths))
