"""The per-machine secret that tells the ledger lines this machine wrote from the others.

The ledger and its backups lie in the workspace, where agents and (through git) teammates
write. A line is this machine's when it carries ``sig``: an HMAC-SHA256, under a secret kept
outside the workspace (the user's state directory, ``platformdirs``), of the line's
canonical content and the workspace it was written in. A forged line, a teammate's pulled
one, or one of ours copied into another workspace does not verify: it is folded for review
state, and never acted on (recovery, undo and redo write only for lines that verify).

The secret is made on first use (32 random bytes, hex, mode 0600). ``$HURIKAERI_KEY_DIR``
names another directory for it (tests point it to a temporary one); nothing else changes.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any

#: The environment variable naming the directory of the secret (the key's location only).
KEY_DIR_ENV = "HURIKAERI_KEY_DIR"
KEY_NAME = "ledger.key"
_DOMAIN = b"hurikaeri-ledger-v1\0"
_keys: dict[str, bytes] = {}


class KeyUnavailable(OSError):
    """The secret cannot be read or made: lines are written unsigned, none is acted on."""


def key_dir() -> Path:
    env = os.environ.get(KEY_DIR_ENV, "").strip()
    if env:
        return Path(env)
    import platformdirs  # only when first signing: commands that start fast stay so

    return Path(platformdirs.user_state_dir("hurikaeri", appauthor=False))


def _read_key(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise KeyUnavailable(f"{path}: {exc.strerror or exc}") from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise KeyUnavailable(f"{path} is not a regular file")
        text = os.read(fd, 256).decode("ascii", "replace").strip()
    finally:
        os.close(fd)
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) < 32:
        raise KeyUnavailable(f"{path} does not hold a key (64 hex digits)")
    return key


def machine_key() -> bytes:
    """The secret (made on first use); :class:`KeyUnavailable` when it cannot be had."""
    d = key_dir()
    cached = _keys.get(str(d))
    if cached is not None:
        return cached
    path = d / KEY_NAME
    key = _read_key(path)
    if key is None:
        try:
            d.mkdir(parents=True, exist_ok=True, mode=0o700)
            tmp = d / f".{KEY_NAME}.{secrets.token_hex(4)}"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            try:
                os.write(fd, secrets.token_hex(32).encode("ascii") + b"\n")
                os.fsync(fd)
            finally:
                os.close(fd)
            try:
                os.link(tmp, path)  # never over a key another process made meanwhile
            except FileExistsError:
                pass
            finally:
                os.unlink(tmp)
        except OSError as exc:
            raise KeyUnavailable(f"{d}: cannot keep the ledger key: {exc.strerror or exc}") from exc
        key = _read_key(path)
        if key is None:
            raise KeyUnavailable(f"{path}: the ledger key vanished")
    _keys[str(d)] = key
    return key


def canonical(record: dict[str, Any]) -> bytes:
    """The content a signature covers: every field but ``sig``, keys sorted, ASCII."""
    body = {k: v for k, v in record.items() if k != "sig"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _mac(key: bytes, scope: str, record: dict[str, Any]) -> str:
    msg = _DOMAIN + scope.encode("utf-8", "surrogatepass") + b"\0" + canonical(record)
    return hmac.new(key, msg, hashlib.sha256).hexdigest()


def scope_of(state_dir: Path) -> str:
    """What a line is bound to besides its content: the workspace's state directory."""
    return os.path.realpath(state_dir)


#: (key directory, state directory): the key and the scope lines there are signed with
_signers: dict[tuple[str, str], tuple[bytes, str]] = {}


def _signer(state_dir: Path) -> tuple[bytes, str]:
    """The key and scope for lines of ``state_dir`` (:class:`KeyUnavailable`: none)."""
    d = key_dir()
    at = (str(d), str(state_dir))
    got = _signers.get(at)
    if got is None:
        key = machine_key()
        if _inside(d, state_dir.parent):
            raise KeyUnavailable(
                f"the ledger key ({d}) lies inside the workspace, where agents write; "
                f"set {KEY_DIR_ENV} to a directory outside it"
            )
        got = _signers[at] = (key, scope_of(state_dir))
    return got


def problem(state_dir: Path) -> str | None:
    """Why no line of ``state_dir`` can be signed here (``None``: they can)."""
    try:
        _signer(state_dir)
    except KeyUnavailable as exc:
        return str(exc)
    return None


def sign(state_dir: Path, record: dict[str, Any]) -> str | None:
    """The ``sig`` of ``record`` written in the workspace of ``state_dir``; ``None`` when
    the key cannot be had or lies inside the workspace (then nothing of it is acted on)."""
    try:
        key, scope = _signer(state_dir)
    except KeyUnavailable:
        return None
    return _mac(key, scope, record)


def verify(state_dir: Path, record: dict[str, Any], sig: object) -> bool:
    """Whether ``sig`` is this machine's for ``record`` in the workspace of ``state_dir``."""
    if not isinstance(sig, str) or not sig:
        return False
    expected = sign(state_dir, record)
    return expected is not None and hmac.compare_digest(expected, sig)


def sign_scoped(scope: str, record: dict[str, Any]) -> str | None:
    """The signature of ``record`` for ``scope`` (another kind of file ours alone writes,
    named by what it is about); ``None`` when the key cannot be had."""
    try:
        return _mac(machine_key(), scope, record)
    except KeyUnavailable:
        return None


def verify_scoped(scope: str, record: dict[str, Any], sig: object) -> bool:
    """Whether ``sig`` is this machine's for ``record`` in ``scope``."""
    if not isinstance(sig, str) or not sig:
        return False
    expected = sign_scoped(scope, record)
    return expected is not None and hmac.compare_digest(expected, sig)


def _inside(path: Path, root: Path) -> bool:
    """A key kept inside the workspace is a key agents can read: it authenticates nothing."""
    real, base = os.path.realpath(path), os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


__all__ = [
    "KEY_DIR_ENV",
    "KeyUnavailable",
    "canonical",
    "key_dir",
    "problem",
    "sign",
    "sign_scoped",
    "verify",
    "verify_scoped",
]
