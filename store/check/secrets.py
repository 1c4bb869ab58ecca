"""Secrets never promoted: what a write adds to a file agents load is scanned first by
Kingfisher, offline (its validation would send the secret to providers); a hit refuses the
write (:class:`SecretFound`) unless the person overrides."""

from __future__ import annotations

import contextlib
import re
import threading
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any, Literal

from store.errors import ReviewError
from store.read.textio import as_text

#: ``medium`` keeps the rules Kingfisher's authors trust (``low`` flags ordinary prose)
CONFIDENCE: Literal["low", "medium", "high"] = "medium"
MAX_SHOWN = 3
#: passwords that only stand for one, as documentation writes them
#: (``postgres://user:pass@host/db``, ``postgres:postgres@localhost``): no secret to keep
_WORDS = "pass password passwd pwd postgres mysql secret changeme example admin root test user"
PLACEHOLDERS = frozenset(_WORDS.split())
_URI_PASSWORD = re.compile(r"://[^:/@\s]*:([^@\s]*)@([^:/?#\s]*)")
_HOST_AFTER = re.compile(rb"@([^:/?#\s]*)")
#: hosts of examples: a name without a dot (a compose service: ``db``), loopback, reserved names
_EXAMPLE_HOSTS = re.compile(
    r"[^.]*|127\.0\.0\.1|0\.0\.0\.0|(?:.*\.)?(?:example(?:\.com)?|test|local|invalid)"
)


@dataclass(frozen=True, slots=True)
class SecretHit:
    """One secret found: where (1-based line and column; ``where`` names the text or file)."""

    rule: str
    name: str
    line: int
    column: int
    masked: str
    where: str = ""

    @property
    def label(self) -> str:
        """The rule's short name (``github-pat``): the library's own names are sentences."""
        return self.rule.rsplit(".", 1)[-1]

    def describe(self) -> str:
        place = f"{self.where}:" if self.where else "line "
        return f"{self.label} {self.masked} at {place}{self.line}:{self.column}"

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "label": self.label}


class SecretFound(ReviewError):
    """A write refused because the text it adds holds secrets (``hits``)."""

    def __init__(self, message: str, hits: list[SecretHit]) -> None:
        super().__init__(message)
        self.hits = hits


class ScannerUnavailable(ReviewError):
    """The detector library cannot be loaded here: writes of agent text are refused."""


def mask(secret: str) -> str:
    """``ghp_…56`` style: the first four and last two characters of a long secret, the
    rest as ``•`` (at most 12 of them); a short one (under 12) keeps only two."""
    s = " ".join(secret.split())
    if len(s) < 12:
        return s[:2] + "•" * min(max(len(s) - 2, 3), 12)
    return s[:4] + "•" * min(len(s) - 6, 12) + s[-2:]


class _Detector:
    """One compiled Kingfisher scanner per process (loading the rules takes ~0.2–0.3 s)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._scanner: Any = None

    def scanner(self) -> Any:
        with self._lock:
            if self._scanner is None:
                try:
                    from kingfisher_sdk import Rules, Scanner
                except ImportError as exc:  # a platform without the native wheel
                    raise ScannerUnavailable(
                        "the secret scanner (kingfisher-secret-scanner) is not installed; "
                        "nothing agents wrote is written into a target without it"
                    ) from exc
                self._scanner = Scanner(Rules(confidence=CONFIDENCE), redact=False)
            return self._scanner


_DETECTOR = _Detector()


_WARM_LOCK = threading.Lock()
_WARMING: threading.Thread | None = None


def warm_up() -> threading.Thread:
    """Load the scanner's rules on a daemon thread, once per process (the native load lets
    go of the GIL); the first scan waits for it and reports a library that cannot load."""

    global _WARMING
    with _WARM_LOCK:
        if _WARMING is None:

            def load() -> None:
                with contextlib.suppress(ScannerUnavailable):  # said by the scan needing it
                    _DETECTOR.scanner()

            _WARMING = threading.Thread(target=load, name="secret-rules", daemon=True)
            _WARMING.start()
        return _WARMING


def scan_text(text: str, where: str = "") -> list[SecretHit]:
    """Every secret in ``text``, by position (visible findings only: the library also
    reports the halves of a pair, an AWS secret key beside its id, folded into the visible)."""
    if not text:
        return []
    data = text.encode("utf-8", "surrogatepass")
    found = _DETECTOR.scanner().scan(data)
    hits: list[SecretHit] = []
    seen: set[tuple[int, int]] = set()
    for f in found:
        loc = f.location
        start = int(loc.get("start_offset", 0))
        if not f.visible or _placeholder(f.secret, data[start : start + 300]):
            continue
        line = int(loc.get("line", 1)) or 1
        # the library counts columns in bytes from 0: people count characters from 1
        line_start = data.rfind(b"\n", 0, start) + 1
        column = len(data[line_start:start].decode("utf-8", "replace")) + 1
        if (line, column) in seen:
            continue
        seen.add((line, column))
        hits.append(SecretHit(f.rule_id, f.rule_name, line, column, mask(f.secret), where))
    hits.sort(key=lambda h: (h.line, h.column))
    return hits


def _placeholder(secret: str, found: bytes) -> bool:
    """A password that is a placeholder word, alone or in a URI of an example's host
    (``root:root@prod-db.acme.com`` is a real host's, and reported)."""
    m = _URI_PASSWORD.search(secret)
    after = _HOST_AFTER.match(found, len(secret.encode("utf-8", "surrogatepass")))
    password, host = (
        (m[1], m[2]) if m else (secret, after[1].decode("utf-8", "replace") if after else None)
    )
    if host is not None and not _EXAMPLE_HOSTS.fullmatch(host.lower()):
        return False
    return password.lower() in PLACEHOLDERS


def added_lines(before: bytes | str | None, after: bytes | str) -> list[tuple[int, str]]:
    """What a write adds: the lines of ``after`` that ``before`` lacks (counted), with their
    1-based line numbers in ``after``."""
    have = Counter(as_text(before).splitlines())
    out: list[tuple[int, str]] = []
    for n, line in enumerate(as_text(after).splitlines(), 1):
        if have[line] > 0:
            have[line] -= 1
        else:
            out.append((n, line))
    return out


def scan_added(before: bytes | str | None, after: bytes | str, where: str = "") -> list[SecretHit]:
    """The secrets in what a write adds, with their line numbers in the new file."""
    added = added_lines(before, after)
    if not added:
        return []
    # one scan of the added lines joined; line numbers mapped back to the file's
    hits = scan_text("\n".join(text for _, text in added), where)
    return [
        SecretHit(h.rule, h.name, added[h.line - 1][0], h.column, h.masked, h.where)
        for h in hits
        if 0 < h.line <= len(added)
    ]


def refusal(
    hits: list[SecretHit], what: str, how: str = "--allow-secret on the command line"
) -> str:
    shown = "; ".join(h.describe() for h in hits[:MAX_SHOWN])
    more = f" and {len(hits) - MAX_SHOWN} more" if len(hits) > MAX_SHOWN else ""
    return (
        f"refused: {what} holds what looks like a secret ({shown}{more}); nothing was "
        f"written. Edit the text, or override explicitly if it is not one ({how})"
    )


def check_write(
    before: bytes | str | None,
    after: bytes | str,
    where: str,
    what: str,
    *,
    allow: bool = False,
) -> list[SecretHit]:
    """Refuse (:class:`SecretFound`) a write whose added lines hold secrets, unless
    ``allow`` (the person's explicit override)."""
    hits = scan_added(before, after, where)
    if hits and not allow:
        raise SecretFound(refusal(hits, what), hits)
    return hits
