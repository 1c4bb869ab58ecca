"""The per-machine secret (outside the workspace, where agents and teammates write) whose
HMAC ``sig`` marks the ledger lines this machine wrote. A line that does not verify is
folded for review state but never acted on (recovery, undo, redo)."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any

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
    """The secret, made on first use."""
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


#: (key directory, state directory): the key and the scope (the real state directory)
_signers: dict[tuple[str, str], tuple[bytes, str]] = {}


def _signer(state_dir: Path) -> tuple[bytes, str]:
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
        got = _signers[at] = (key, os.path.realpath(state_dir))
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
    the key cannot be had or lies inside the workspace."""
    try:
        key, scope = _signer(state_dir)
    except KeyUnavailable:
        return None
    return _mac(key, scope, record)


def _matches(expected: str | None, sig: object) -> bool:
    return isinstance(sig, str) and expected is not None and hmac.compare_digest(expected, sig)


def verify(state_dir: Path, record: dict[str, Any], sig: object) -> bool:
    return bool(sig) and _matches(sign(state_dir, record), sig)


def sign_scoped(scope: str, record: dict[str, Any]) -> str | None:
    """The signature of ``record`` for ``scope``: another kind of file ours alone writes,
    named by what it is about."""
    try:
        return _mac(machine_key(), scope, record)
    except KeyUnavailable:
        return None


def verify_scoped(scope: str, record: dict[str, Any], sig: object) -> bool:
    return bool(sig) and _matches(sign_scoped(scope, record), sig)


def _inside(path: Path, root: Path) -> bool:
    """A key kept inside the workspace is a key agents can read: it authenticates nothing."""
    real, base = os.path.realpath(path), os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)
