"""Two authors' reports with one id (issue 22): each machine counts ``kpt-YYYYMMDD-001`` from
001, so a team's workspace holds reports sharing an id. Their items stay distinct (located
keys, ``store.located``), decisions attach to the report they were made on — also when the
second report arrives after the decision — and naming the shared id alone is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store.config import Config
from store.errors import AmbiguousReport
from store.index.workspace_index import WorkspaceIndex
from store.ledger import Ledger
from store.located import loc_tag, plain_key, report_key, split_located
from store.review.items import decide, decide_keys, find_item
from store.tx.transactions import next_turn, undo
from store.workspace import Workspace
from tests.ledger_lines import decide as decide_line

RID = "kpt-20260208-001"
ALICE = "team/alice/hurikaeri/kpt-20260208-001.yaml"
BOB = "team/bob/hurikaeri/kpt-20260208-001.yaml"


def write_report(root: Path, rel: str, author: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"id: {RID}\nsession_id: s-{author}\ncreated_at: '2026-02-08T10:00:00+09:00'\n"
        f"session_summary: {author}'s session\n"
        "keep:\n  - id: keep-001\n    description: tests first\n"
        "problem: []\ntry:\n  - id: try-001\n"
        f"    description: pin the version of {author}\n"
        "omission: []\n",
        encoding="utf-8",
    )


def team_ws(root: Path) -> Workspace:
    return Workspace(root, Config(paths={"kpt": [Path("team/*/hurikaeri")]}))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    write_report(root, ALICE, "alice")
    write_report(root, BOB, "bob")
    return root


def loaded(root: Path) -> WorkspaceIndex:
    index = WorkspaceIndex(team_ws(root), use_cache=False)
    index.load_all()
    return index


def keys_of(index: WorkspaceIndex) -> dict[str, list[str]]:
    """Each report's item keys, by the report's path as shown."""
    out = {}
    for s in index.sessions.values():
        assert s.report is not None
        out[index.ws.display(s.report.path)] = index.item_keys(s)
    return out


def test_located_keys_round_trip() -> None:
    key = f"{report_key(RID, ALICE)}/keep-001"
    assert key == f"{RID}@{loc_tag(ALICE)}/keep-001"
    assert split_located(key) == (f"{RID}/keep-001", loc_tag(ALICE))
    assert split_located(report_key(RID, ALICE)) == (RID, loc_tag(ALICE))
    assert plain_key(f"{RID}/keep-001") == f"{RID}/keep-001"
    assert split_located("lesson:someone@example.com") is None


def test_items_of_two_reports_with_one_id_are_distinct(root: Path) -> None:
    index = loaded(root)
    assert set(index.shared_ids()) == {RID}
    keys = keys_of(index)
    assert keys[ALICE] == [f"{RID}@{loc_tag(ALICE)}/keep-001", f"{RID}@{loc_tag(ALICE)}/try-001"]
    assert keys[BOB] == [f"{RID}@{loc_tag(BOB)}/keep-001", f"{RID}@{loc_tag(BOB)}/try-001"]
    assert index.find_report(report_key(RID, BOB)).report.path == root / BOB  # type: ignore[union-attr]


def test_a_decision_attaches_to_the_report_it_was_made_on(root: Path) -> None:
    ws = team_ws(root)
    bob_keep = f"{report_key(RID, BOB)}/keep-001"
    decide(ws, Ledger(ws.state_dir), [bob_keep], "approve", "good")
    index = loaded(root)
    keys = keys_of(index)
    assert index.ledger.state(keys[BOB][0]).state == "approved"
    assert index.ledger.state(keys[ALICE][0]).state == "pending"
    assert index.review_progress(index.find_report(report_key(RID, BOB))) == (1, 2)  # type: ignore[arg-type]
    assert index.review_progress(index.find_report(report_key(RID, ALICE))) == (0, 2)  # type: ignore[arg-type]
    # the line says where the report lies
    line = json.loads((ws.state_dir / "ledger.jsonl").read_text().splitlines()[-1])
    assert line["effects"][0]["loc"] == BOB


def test_naming_a_shared_id_alone_is_refused_with_each_located_id(root: Path) -> None:
    ws = team_ws(root)
    with pytest.raises(AmbiguousReport) as e:
        find_item(ws, f"{RID}/keep-001")
    assert f"{report_key(RID, ALICE)} ({ALICE})" in str(e.value)
    assert f"{report_key(RID, BOB)} ({BOB})" in str(e.value)
    with pytest.raises(AmbiguousReport):
        decide_keys(ws, [f"{RID}/keep-001"], "approve")
    assert not (ws.state_dir / "ledger.jsonl").exists()
    assert find_item(ws, f"{report_key(RID, ALICE)}/try-001").path == root / ALICE


def test_a_decision_made_before_the_second_report_arrived_stays_with_its_report(
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    write_report(root, ALICE, "alice")
    ws = team_ws(root)
    decide(ws, Ledger(ws.state_dir), [f"{RID}/keep-001"], "reject", "weak")  # unique then
    write_report(root, BOB, "bob")  # a pull brings bob's report with the same id
    index = loaded(root)
    keys = keys_of(index)
    assert index.ledger.state(keys[ALICE][0]).state == "rejected"
    assert index.ledger.state(keys[BOB][0]).state == "pending"


def test_a_line_that_names_no_place_is_about_every_report_of_the_id(root: Path) -> None:
    ws = team_ws(root)
    decide_line(Ledger(ws.state_dir), f"{RID}/try-001", "approve")  # written before places were
    index = loaded(root)
    keys = keys_of(index)
    assert index.ledger.state(keys[ALICE][1]).state == "approved"
    assert index.ledger.state(keys[BOB][1]).state == "approved"


def test_undo_of_a_located_decision_says_and_restores_its_report_only(root: Path) -> None:
    from store.tx.transactions import describe_turn

    ws = team_ws(root)
    led = Ledger(ws.state_dir)
    alice_try = f"{report_key(RID, ALICE)}/try-001"
    bob_try = f"{report_key(RID, BOB)}/try-001"
    decide(ws, led, [bob_try], "approve", None)
    decide(ws, led, [alice_try], "reject", None)
    decide(ws, led, [alice_try], "approve", None)
    assert f"sets {alice_try} back to rejected" in describe_turn(ws, ledger=led)
    done = next_turn(ws, ledger=led)
    assert done is not None
    undo(ws, done.id, ledger=led)
    led.refresh()
    assert led.state(alice_try).state == "rejected"
    assert led.state(bob_try).state == "approved"


def test_when_one_report_is_removed_the_other_is_found_by_its_plain_id(root: Path) -> None:
    index = loaded(root)
    first = index.by_report[RID]
    assert first.report is not None
    first.report.path.unlink()
    index.update([first.report.path])
    assert index.shared_ids() == {}
    s = index.find_report(RID)
    assert s is not None and s.report is not None and s.report.path != first.report.path
    assert index.item_keys(s)[0] == f"{RID}/keep-001"


def test_lint_names_the_located_ids(root: Path) -> None:
    from store.insight.lint import lint_workspace

    found = [d for d in lint_workspace(team_ws(root)) if d.code == "duplicate-report-id"]
    assert len(found) == 2
    assert report_key(RID, BOB) in next(d.message for d in found if d.path == ALICE)


def run_cli(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    from tui.cli.main import main

    cfg = root / "config.toml"
    cfg.write_text('[paths]\nkpt = ["team/*/hurikaeri"]\n', encoding="utf-8")
    capsys.readouterr()
    code = main(["--root", str(root), "--config", str(cfg), *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_refuses_the_shared_id_and_takes_the_located_one(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = run_cli(root, capsys, "approve", f"{RID}/keep-001")
    assert code == 1, err
    assert report_key(RID, ALICE) in err and report_key(RID, BOB) in err
    code, _out, err = run_cli(root, capsys, "show", RID)
    assert code == 1 and report_key(RID, BOB) in err
    bob_keep = f"{report_key(RID, BOB)}/keep-001"
    code, _out, err = run_cli(root, capsys, "approve", bob_keep)
    assert code == 0, err
    code, out, err = run_cli(root, capsys, "show", report_key(RID, BOB), "--json")
    assert code == 0, err
    items = json.loads(out)["items"]
    assert [(i["ref"], i["state"]) for i in items] == [
        (bob_keep, "approved"),
        (f"{report_key(RID, BOB)}/try-001", "pending"),
    ]
    code, out, err = run_cli(root, capsys, "show", f"{report_key(RID, ALICE)}/keep-001", "--json")
    assert code == 0 and json.loads(out)["state"] == "pending", err


def test_search_prints_located_ids_that_show_takes(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(root, capsys, "search", "pin the version", "--json")
    assert code == 0, err
    ids = sorted(h["id"] for h in json.loads(out) if h["kind"] == "try")
    assert ids == sorted(f"{report_key(RID, p)}/try-001" for p in (ALICE, BOB))
    for ident in ids:
        code, out, err = run_cli(root, capsys, "show", ident, "--json")
        assert code == 0, err
        assert json.loads(out)["ref"] == ident


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    lines=st.lists(
        st.tuples(
            st.sampled_from(["approve", "reject", "reopen", "edit"]),
            st.sampled_from([None, ALICE, BOB, "team/carol/hurikaeri/x.yaml"]),
            st.booleans(),  # the target located, or plain with the path
            st.sampled_from(["keep-001", "try-001"]),
        ),
        max_size=25,
    ),
    locate_first=st.booleans(),
)
def test_the_located_fold_is_the_fold_of_each_reports_own_lines(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[tuple[str, str | None, bool, str]],
    locate_first: bool,
) -> None:
    """Kept as lines come in (or worked out when the shared id is found later), each
    report's state is the fold of its own lines and those naming no place, in order."""
    state_dir = tmp_path_factory.mktemp("led")
    led = Ledger(state_dir)
    if locate_first:
        led.locate([RID])
    for op, loc, located, item in lines:
        if loc is None:
            decide_line(led, f"{RID}/{item}", op)
        elif located:
            decide_line(led, f"{report_key(RID, loc)}/{item}", op, loc=loc)
        else:
            decide_line(led, f"{RID}/{item}", op, loc=loc)
    fresh = Ledger(state_dir)
    for where in (ALICE, BOB, "team/dave/hurikaeri/y.yaml"):
        for item in ("keep-001", "try-001"):
            key = f"{report_key(RID, where)}/{item}"
            want = led.state_without(key, "no such group")  # a scan of every line
            for got in (led.state(key), fresh.state(key)):
                assert (got.state, got.note, got.edited, got.who) == (
                    want.state,
                    want.note,
                    want.edited,
                    want.who,
                )


def test_a_report_whose_file_name_is_not_utf8_is_decided_on_and_told_apart(
    tmp_path: Path,
) -> None:
    """The path a decision records is UTF-8 whatever bytes the file name holds (an agent
    chose it), and the located key made from it finds that report again."""
    import os

    root = tmp_path / "root"
    odd = "team/bob/hurikaeri/" + os.fsdecode(b"kpt-\xff.yaml")
    write_report(root, ALICE, "alice")
    write_report(root, odd, "bob")
    ws = team_ws(root)
    index = loaded(root)
    bob = next(s for s in index.sessions.values() if s.key == "sid:s-bob")
    key = index.item_keys(bob)[0]
    decide(ws, Ledger(ws.state_dir), [key], "approve", None)
    assert b"\\\\xff" in (ws.state_dir / "ledger.jsonl").read_bytes()
    index = loaded(root)
    assert index.ledger.state(key).state == "approved"
    assert index.ledger.state(index.item_keys(index.sessions["sid:s-alice"])[0]).state == "pending"
