"""``hurikaeri sync``: share one reviewer's work through the workspace's git repository, with
the real ``git`` (what it does and refuses: docs/team-review.md). It commits only the
reviewer's own files (``git commit --only``), replays them onto a moved remote in a temporary
worktree, and on any conflict leaves everything as it was. What a sync made and has not pushed
is listed in the git directory (``UNPUSHED``): a trailer in a message is what anyone can write.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from store import team
from store.errors import ReviewError
from store.git import run_git
from store.ledger import Ledger, TxRecord
from store.read.counted import counted
from store.review.changes import list_changes
from store.tx.journal import record_path
from store.tx.reviewed import sha256
from store.tx.transactions import recover, tx_lock
from store.workspace import Workspace

TRAILER = "Hurikaeri-Sync"
PUSH_TRIES = 3  # a push that lost a race is tried again
UNPUSHED = "hurikaeri-sync-unpushed"
#: in ``UNPUSHED``: the commit a sync is about to make on top of this one (a kill may
#: stop it between the commit and the line naming it)
AFTER = "after "


class SyncError(ReviewError):
    """The sync stopped; the message is one line, and the repository is as it was."""


class ChooseEarlier(SyncError):
    """The first sync asks: bring the decisions made before joining into the team, or not."""

    def __init__(self, decisions: list[str]) -> None:
        self.decisions = decisions
        them = "it" if len(decisions) == 1 else "them"
        super().__init__(
            f"only .hurikaeri/{team.LOCAL_LEDGER} on this machine holds "
            f"{counted(len(decisions), 'decision')} you made before joining the team review "
            f"(listed above): 'sync --bring-in' shares {them} with the team, 'sync --keep-local' "
            f"keeps {them} to yourself"
        )


@dataclass(slots=True)
class SyncResult:
    """What a sync did (or, with ``dry_run``, would do)."""

    reviewer: str
    branch: str
    remote: str | None
    committed: list[str] = field(default_factory=list)  # relative to the repository's top
    decisions: list[str] = field(default_factory=list)  # one line per decision committed
    pulled: int = 0  # commits of others brought in
    brought_in: list[str] = field(default_factory=list)  # decisions made before joining
    pushed: int = 0
    unpushed: int = 0  # commits the remote still lacks after the sync
    joined: bool = False
    dry_run: bool = False
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        verb = "would " if self.dry_run else ""
        out = []
        if self.joined:
            out.append(f"{verb}join the team review as {self.reviewer}")
        if self.brought_in:
            out.append(
                f"{verb}bring in {counted(len(self.brought_in), 'decision')} made before joining "
                f"(.hurikaeri/{team.LOCAL_LEDGER} is kept as {team.BROUGHT_IN})"
            )
        if self.committed:
            out.append(
                f"{verb}commit {counted(len(self.committed), 'file')}: {', '.join(self.committed)}"
            )
            out += [f"  {d}" for d in self.decisions]
        else:
            out.append("nothing of yours to commit")
        if self.remote is None:
            out.append("no remote: nothing fetched or pushed")
        elif self.dry_run:
            out.append(f"would fetch {self.remote}, replay your commits onto it, and push")
        else:
            out.append(f"brought in {counted(self.pulled, 'commit')} from {self.remote}")
            out.append(
                f"pushed {counted(self.pushed, 'commit')} to {self.remote}/{self.branch}"
                if self.pushed
                else ("pushed nothing" if self.unpushed else "nothing to push")
            )
        return out + self.notes

    def as_json(self) -> dict[str, object]:
        return {
            "reviewer": self.reviewer,
            "branch": self.branch,
            "remote": self.remote,
            "committed": self.committed,
            "decisions": self.decisions,
            "pulled": self.pulled,
            "pushed": self.pushed > 0,
            "pushed_commits": self.pushed,
            "joined": self.joined,
            "brought_in": self.brought_in,
            "dry_run": self.dry_run,
        }


# -- git --------------------------------------------------------------------------------


def _run(top: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return run_git(top, *args)
    except FileNotFoundError:
        raise SyncError("git is not installed (sync uses the git command)") from None


def _git(top: Path, *args: str, check: bool = True) -> str:
    """``git``'s standard output in ``top``, or :class:`SyncError` (one line)."""
    done = _run(top, *args)
    if check and done.returncode != 0:
        why = (done.stderr.strip() or done.stdout.strip()).splitlines()
        raise SyncError(
            f"git {args[0]} failed: {why[-1] if why else 'exit status ' + str(done.returncode)}"
        )
    return done.stdout


def _ok(top: Path, *args: str) -> bool:
    return _run(top, *args).returncode == 0


def _top(ws: Workspace) -> Path:
    if not ws.root.is_dir():
        raise SyncError(f"{ws.root} does not exist")
    try:
        out = _git(ws.root, "rev-parse", "--show-toplevel")
    except SyncError:
        raise SyncError(
            f"{ws.root} is not in a git repository; a team shares its workspace as one "
            "(see README, Team review)"
        ) from None
    return Path(out.strip())


def _in_progress(top: Path) -> str | None:
    for name, what in (
        ("rebase-merge", "a rebase"),
        ("rebase-apply", "a rebase"),
        ("MERGE_HEAD", "a merge"),
        ("CHERRY_PICK_HEAD", "a cherry-pick"),
    ):
        if _git_path(top, name).exists():
            return what
    return None


def _upstream(top: Path, branch: str) -> tuple[str | None, str | None]:
    """The remote and the remote-tracking ref the branch follows (``origin/<branch>``
    when none is set but there is an ``origin``); ``(None, None)``: no remote at all."""
    remote = _git(top, "config", f"branch.{branch}.remote", check=False).strip()
    remotes = _git(top, "remote").split()
    if not remote or remote == ".":
        remote = "origin" if "origin" in remotes else (remotes[0] if remotes else "")
    if not remote:
        return None, None
    return remote, f"refs/remotes/{remote}/{branch}"


def _rel(top: Path, path: Path) -> str | None:
    real = Path(os.path.realpath(path))
    try:
        return real.relative_to(Path(os.path.realpath(top))).as_posix()
    except ValueError:
        return None


def _changed(top: Path, rels: list[str]) -> list[str]:
    """Of ``rels``, those git sees changed, new or deleted in the work tree."""
    if not rels:
        return []
    out = _git(top, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *rels)
    found: set[str] = set()
    parts = iter(out.split("\0"))
    for entry in parts:
        if len(entry) < 4:
            continue
        if entry[0] in "RC":  # a rename's source follows
            next(parts, None)
        if entry[:2] != "!!":
            found.add(entry[3:])
    return [r for r in rels if r in found]


# -- what is the reviewer's --------------------------------------------------------------


def _own_txs(led: Ledger) -> list[TxRecord]:
    """The reviewer's transactions made on this machine (signed, ``Ledger.is_ours``): a line
    forged into their ledger file names files that must not be pushed under their name."""
    return [t for t in led.txs.values() if t.status == "committed" and led.is_ours(t)]


def _committed_ids(top: Path, rel: str) -> set[str]:
    """The transactions the committed version of the reviewer's ledger already holds."""
    text = _git(top, "show", f"HEAD:{rel}", check=False) if _ok(top, "rev-parse", "HEAD") else ""
    ids: set[str] = set()
    for line in text.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and rec.get("tx"):
            ids.add(str(rec["tx"]))
    return ids


def _message(who: str, decisions: list[str]) -> str:
    n = len(decisions)
    head = f"hurikaeri: {who}: {counted(n, 'decision')}" if n else f"hurikaeri: {who}"
    body = "\n".join(f"- {d}" for d in decisions)
    return f"{head}\n\n{body}\n\n{TRAILER}: {who}\n" if body else f"{head}\n\n{TRAILER}: {who}\n"


# -- the sync -----------------------------------------------------------------------------


def sync(ws: Workspace, *, dry_run: bool = False, bring_in: bool | None = None) -> SyncResult:
    """Share the reviewer's work and bring in the team's. ``bring_in``: the decisions made
    before joining (only in the local ``ledger.jsonl``) go to the team (True), stay local
    (False), or the sync stops to ask (``None``, :class:`ChooseEarlier`)."""
    top = _top(ws)
    doing = _in_progress(top)
    if doing:
        raise SyncError(f"{top} is in the middle of {doing}; finish or abort it first")
    branch = _git(top, "symbolic-ref", "--quiet", "--short", "HEAD", check=False).strip()
    if not branch:
        raise SyncError(f"{top} has no branch checked out (a detached HEAD); check one out")
    led = Ledger(ws.state_dir)
    who = led.who
    own = team.ledger_file(ws.state_dir, who)
    earlier = [] if own.exists() else team.before_joining(ws.state_dir)
    if earlier and bring_in is None and not dry_run:
        raise ChooseEarlier(earlier)
    remote, upstream = _upstream(top, branch)
    if remote is not None and upstream is not None:
        if dry_run:  # nothing fetched: checked against what is known of the remote
            _only_ours(top, remote, upstream, _ref(top, upstream))
        else:
            _fetch_and_check(top, remote, upstream)
    result = SyncResult(who, branch, remote, dry_run=dry_run)
    result.joined = not team.is_team(ws.state_dir)
    if earlier and bring_in is None:  # (a dry run) what a sync would stop to ask
        result.notes.append(
            f"only .hurikaeri/{team.LOCAL_LEDGER} holds {counted(len(earlier), 'decision')} made "
            "before joining; sync would ask: --bring-in or --keep-local"
        )
        result.notes += [f"  {d}" for d in earlier]
    with tx_lock(ws) if not dry_run else contextlib.nullcontext():
        if not dry_run:
            _remove_stale_worktrees(top)
            if earlier and bring_in:  # first: what recovery appends follows their lines
                try:
                    team.bring_in(ws.state_dir, own)
                except OSError as exc:
                    raise SyncError(f"cannot bring in {team.LOCAL_LEDGER}: {exc}") from None
                result.brought_in = earlier
            recover(ws, ledger=led)
            if result.joined or not own.exists():
                own.parent.mkdir(parents=True, exist_ok=True)
                own.touch(exist_ok=True)
            led.refresh()
        elif earlier and bring_in:
            result.brought_in = earlier
        made = _commit_own(ws, top, led, own, result, dry_run=dry_run)
    if dry_run or remote is None or upstream is None:
        return result
    for attempt in range(PUSH_TRIES):
        try:
            if attempt:  # the remote moved on: what it has now is checked again
                _fetch_and_check(top, remote, upstream)
            if _ref(top, upstream) is not None:
                result.pulled += _integrate(ws, top, upstream, led)
        except SyncError:
            if made:  # as it was: the files changed again, not committed, not staged
                _take_back(ws, top, made)
            raise
        result.unpushed = ahead = _ahead(top, remote, upstream)
        if not ahead:
            break
        if _push(top, remote, branch):
            result.pushed, result.unpushed = ahead, 0
            _unpushed_write(top, set())
            break
        if attempt == PUSH_TRIES - 1:
            result.notes.append("the remote kept moving; your commit is kept: sync again")
    return result


def _ref(top: Path, ref: str) -> str | None:
    out = _git(top, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False).strip()
    return out or None


def _ahead(top: Path, remote: str, upstream: str) -> int:
    base = [upstream] if _ref(top, upstream) else [f"--remotes={remote}"]
    return int(_git(top, "rev-list", "--count", "HEAD", "--not", *base).strip() or 0)


def _fetch_and_check(top: Path, remote: str, upstream: str) -> None:
    before = _ref(top, upstream)
    _git(top, "fetch", "--quiet", remote)
    _only_ours(top, remote, upstream, before)


def _git_path(top: Path, name: str) -> Path:
    p = Path(_git(top, "rev-parse", "--git-path", name).strip())
    return p if p.is_absolute() else top / p


def _unpushed(top: Path) -> set[str]:
    try:
        text = _git_path(top, UNPUSHED).read_text(encoding="ascii", errors="replace")
    except OSError:
        return set()
    return {ln.strip() for ln in text.splitlines() if ln.strip()}


def _unpushed_write(top: Path, shas: set[str]) -> None:
    path = _git_path(top, UNPUSHED)
    if not shas:
        path.unlink(missing_ok=True)
        return
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(f"{s}\n" for s in sorted(shas)), encoding="ascii")
    os.replace(tmp, path)


def _only_ours(top: Path, remote: str, upstream: str, before: str | None) -> None:
    """Refuse unless every commit of HEAD the remote branch lacks was made by a sync here
    and not pushed yet. ``before``: the remote branch before the fetch — a commit it had and
    the fresh one lacks was taken off the remote by the team, and is not pushed back."""
    if _ref(top, "HEAD") is None:
        return  # no commit yet: nothing of anyone's to push
    now = _ref(top, upstream)
    name = upstream.split("/", 2)[-1]
    if now is not None and not _ok(top, "merge-base", "HEAD", now):
        raise SyncError(
            f"{name} shares no history with yours (the remote branch was replaced); "
            "sync pushes only its own commits — settle the branch in git first"
        )
    base = [now] if now is not None else [f"--remotes={remote}"]
    ours = _unpushed(top)
    out = _git(top, "log", "--format=%H%x00%P%x00%B%x01", "HEAD", "--not", *base)
    for chunk in out.split("\x01"):
        if not chunk.strip():
            continue
        sha, parents, body = chunk.strip().split("\0", 2)
        made = f"\n{TRAILER}: " in f"\n{body}"
        if sha in ours or (made and f"{AFTER}{parents or None}" in ours):
            continue
        if before is not None and _ok(top, "merge-base", "--is-ancestor", sha, before):
            raise SyncError(
                f"commit {sha[:10]} was on {name} and the team has taken it off; sync does "
                "not push it back — reset your branch to the remote's (or talk to the team)"
            )
        raise SyncError(
            f"commit {sha[:10]} is not pushed and was not made by "
            + ("hurikaeri sync on this machine" if made else "hurikaeri sync")
            + "; push it (or move it off this branch) yourself first — sync shares only "
            "your review"
        )


def _commit_own(
    ws: Workspace, top: Path, led: Ledger, own: Path, result: SyncResult, *, dry_run: bool
) -> list[str]:
    """Commit the reviewer's ledger and the files their transactions wrote that git sees
    changed; the paths committed."""
    own_rel = _rel(top, own)
    if own_rel is None:
        raise SyncError(f"{own} is outside the repository {top}; the ledger must be in it")
    rels = [own_rel]
    state = Path(os.path.realpath(ws.state_dir))
    for t in _own_txs(led):
        for f in t.files:
            path = record_path(ws, f)
            if Path(os.path.realpath(path)).is_relative_to(state):
                continue  # our own state (backups, the older ledger) stays local
            rel = _rel(top, path)
            if rel is not None and rel not in rels:
                rels.append(rel)
    changed = _changed(top, rels)
    done = _committed_ids(top, own_rel)
    if unreviewed := _unreviewed(ws, top, led, changed, done):
        raise SyncError(
            f"{', '.join(unreviewed[:3])}: holds a change you have not reviewed (see "
            "'hurikaeri changes'); keep or revert it, then sync again — nothing was committed"
        )
    if dry_run and not own.exists():  # it would be created
        changed = [own_rel, *changed]
    result.decisions = [
        team.decision_line(t.action, t.subjects, t.note) for t in _own_txs(led) if t.id not in done
    ]
    result.committed = changed
    if not changed or dry_run:
        return []
    _git(top, "add", "--", *changed)
    message = _message(result.reviewer, result.decisions)
    # listed before it exists: a kill right after the commit leaves it known as ours
    intent = f"{AFTER}{_ref(top, 'HEAD')}"
    _unpushed_write(top, _unpushed(top) | {intent})
    try:
        _git(top, "commit", "--quiet", "--only", "-m", message, "--", *changed)
    except SyncError:
        _git(top, "reset", "--quiet", "--", *changed, check=False)  # unstaged, as they were
        _unpushed_write(top, _unpushed(top) - {intent})
        raise
    _unpushed_write(top, _unpushed(top) - {intent} | {_git(top, "rev-parse", "HEAD").strip()})
    return changed


def _unreviewed(
    ws: Workspace, top: Path, led: Ledger, rels: list[str], done: set[str]
) -> list[str]:
    """Which of ``rels`` hold, beside what the reviewer's own transactions not committed yet
    wrote, a change no one reviewed (an agent's edit before or after a promotion): it would
    reach the team under the reviewer's name. A file whose writes run unbroken from its
    committed version to the file now holds nothing else (what a pull brought is committed)."""
    listed = {_rel(top, c.path) for c in list_changes(ws, ledger=led, attribute=False)[0]}
    out: list[str] = []
    for rel in rels:
        if rel not in listed:
            continue
        writes = [
            f
            for t in _own_txs(led)
            if t.id not in done
            for f in t.files
            if _rel(top, record_path(ws, f)) == rel
        ]
        chain = [_sha256(_head_bytes(top, rel))]
        for f in writes:
            chain += [f.get("before_sha256"), f.get("after_sha256")]
        try:
            chain.append(sha256((top / rel).read_bytes()))
        except OSError:
            chain.append(None)
        if not writes or any(a != b for a, b in zip(chain[::2], chain[1::2], strict=True)):
            out.append(rel)
    return out


def _head_bytes(top: Path, rel: str) -> bytes | None:
    """The committed content of ``rel`` byte for byte (``None``: not in ``HEAD``)."""
    try:
        done = subprocess.run(
            ["git", "cat-file", "blob", f"HEAD:{rel}"], cwd=top, capture_output=True, check=False
        )
    except OSError:
        return None
    return done.stdout if done.returncode == 0 else None


def _sha256(data: bytes | None) -> str | None:
    return None if data is None else sha256(data)


def _take_back(ws: Workspace, top: Path, paths: list[str]) -> None:
    """Undo the commit this sync made (its files changed and unstaged again)."""
    with tx_lock(ws):
        _unpushed_write(top, _unpushed(top) - {_git(top, "rev-parse", "HEAD").strip()})
        _git(top, "reset", "--quiet", "--soft", "HEAD~1")
        _git(top, "reset", "--quiet", "--", *paths)


def _union_paths(ws: Workspace, top: Path, led: Ledger) -> list[str]:
    """The reviewer's files whose lines merge as a union: appended to, or Markdown."""
    out: list[str] = []
    for t in _own_txs(led):
        for f in t.files:
            path = record_path(ws, f)
            if f.get("how") == "append" or path.suffix.lower() in (".md", ".markdown"):
                rel = _rel(top, path)
                if rel is not None and rel not in out:
                    out.append(rel)
    return out


WORKTREE_PREFIX = "hurikaeri-sync-"


def _remove_stale_worktrees(top: Path) -> None:
    """Remove the temporary worktrees of syncs that were killed (their lock is free): each
    is a whole checkout, and git keeps it registered (``locked`` when killed while adding)."""
    listing = _git(top, "worktree", "list", "--porcelain", check=False)
    for line in listing.splitlines():
        wt = Path(line.removeprefix("worktree "))
        if not line.startswith("worktree ") or not wt.parent.name.startswith(WORKTREE_PREFIX):
            continue
        try:
            fd = os.open(wt.parent / "lock", os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            fd = None  # killed before it held the lock
        except OSError:
            continue
        try:
            if fd is not None:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held while that sync runs
        except OSError:
            continue
        else:
            _git(top, "worktree", "remove", "--force", "--force", str(wt), check=False)
            shutil.rmtree(wt.parent, ignore_errors=True)
        finally:
            if fd is not None:
                os.close(fd)
    _git(top, "worktree", "prune", check=False)


@contextlib.contextmanager
def _worktree(top: Path) -> Iterator[Path]:
    tmp = Path(tempfile.mkdtemp(prefix=WORKTREE_PREFIX))
    wt = tmp / "wt"
    lock = os.open(tmp / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a sync killed leaves it free: removed next time
        _git(top, "worktree", "add", "--quiet", "--detach", str(wt), "HEAD")
        yield wt
    finally:
        if (wt / ".git").exists():
            if _in_progress(wt):
                _git(wt, "rebase", "--abort", check=False)
            _git(top, "worktree", "remove", "--force", str(wt), check=False)
        shutil.rmtree(tmp, ignore_errors=True)
        os.close(lock)
        _git(top, "worktree", "prune", check=False)


def _integrate(ws: Workspace, top: Path, upstream: str, led: Ledger) -> int:
    """Bring in what the remote branch has; how many commits."""
    behind = int(_git(top, "rev-list", "--count", f"HEAD..{upstream}").strip() or 0)
    if not behind:
        return 0
    ahead = int(_git(top, "rev-list", "--count", f"{upstream}..HEAD").strip() or 0)
    target = upstream
    replayed: list[str] = []
    if ahead:
        attrs = Path(tempfile.mkdtemp(prefix="hurikaeri-attrs-")) / "attributes"
        try:
            attrs.write_text(
                "".join(f"/{_quote(r)} merge=union\n" for r in _union_paths(ws, top, led)),
                encoding="utf-8",
            )
            with _worktree(top) as wt:
                out = _run(wt, "-c", f"core.attributesFile={attrs}", "rebase", "--quiet", upstream)
                if out.returncode != 0:
                    files = _git(wt, "diff", "--name-only", "--diff-filter=U", check=False).split()
                    _git(wt, "rebase", "--abort", check=False)
                    what = ", ".join(files[:3]) or "your commits"
                    raise SyncError(
                        f"conflict: {what} changed both here and on {upstream.split('/', 2)[-1]}; "
                        "nothing was changed — settle it in git (or undo yours), then sync again"
                    )
                target = _git(wt, "rev-parse", "HEAD").strip()
                replayed = _git(wt, "rev-list", f"{upstream}..HEAD").split()
        finally:
            shutil.rmtree(attrs.parent, ignore_errors=True)
    with tx_lock(ws):  # the work tree moves to the new commit, the branch with it
        head = _git(top, "rev-parse", "HEAD").strip()
        # as a checkout does: local changes carried, or refused
        done = _run(top, "read-tree", "-m", "-u", head, target)
        if done.returncode == 0:
            branch = _git(top, "symbolic-ref", "HEAD").strip()
            if ahead:  # the commits replayed are the sync's own (checked before), listed
                _unpushed_write(top, _unpushed(top) | set(replayed))  # before a kill can
            _git(top, "update-ref", "-m", "hurikaeri sync", branch, target, head)
            if ahead:
                _unpushed_write(top, set(replayed))
    if done.returncode != 0:
        named = [ln.split("'")[1] for ln in done.stderr.splitlines() if ln.count("'") >= 2]
        what = ", ".join(named[:3]) or "files you changed"
        raise SyncError(
            f"conflict: the team changed {what}, which you changed without committing; "
            "commit or put aside those changes, then sync again (nothing was changed)"
        )
    return behind


def _quote(rel: str) -> str:
    """A path as a gitattributes pattern (glob characters and spaces escaped)."""
    return "".join("\\" + ch if ch in '*?[]\\ "#!' else ch for ch in rel)


def _push(top: Path, remote: str, branch: str) -> bool:
    """Push the branch; False when the remote moved on meanwhile (fetch and try again)."""
    done = _run(top, "push", "--quiet", "--set-upstream", remote, f"HEAD:refs/heads/{branch}")
    if done.returncode == 0:
        return True
    err = done.stderr
    if "[rejected]" in err or "fetch first" in err or "non-fast-forward" in err:
        return False
    lines = err.strip().splitlines()  # what the remote said, else git's last word
    why = [ln for ln in lines if ln.startswith("remote:")][:1] or lines
    raise SyncError(
        f"git push failed: {' '.join(why[-1].split()) if why else 'exit status ' + str(done.returncode)}"
        " (what sync committed is kept: sync again)"
    )
