"""Cross-checks of the lint beyond each file's model."""

from __future__ import annotations

import shutil
from pathlib import Path

from store.check.files import check_id_date, lint_file
from store.read.diagnostics import DiagnosticSink
from tests.conftest import SEEDS, TAKT


def _codes(path: Path) -> set[tuple[str, int | None]]:
    return {(d.code, d.line) for d in lint_file(path, None, path.name)}


def test_kpt_id_addresses_and_duplicates(tmp_path: Path) -> None:
    p = tmp_path / "hurikaeri" / "kpt-20260208-009.yaml"
    p.parent.mkdir()
    text = (SEEDS / "kpt-20260208-001.yaml").read_text()
    text = text.replace('addresses: ["prob-001"]', 'addresses: ["prob-001", "prob-404"]')
    text = text.replace("  - id: omit-001", "  - id: prob-001")
    p.write_text(text)
    codes = _codes(p)
    assert ("id-mismatch", 1) in codes
    assert ("unknown-address", 25) in codes
    assert ("duplicate-id", 33) in codes


def test_piece_transitions_and_references(tmp_path: Path) -> None:
    d = tmp_path / "pieces"
    d.mkdir()
    shutil.copytree(TAKT / "builtins/en/facets", tmp_path / "facets")
    p = d / "p.yaml"
    p.write_text(
        "name: p\nmax_movements: 5\ninitial_movement: nowhere\n"
        "movements:\n"
        "  - name: a\n    persona: coder\n    edit: false\n"
        "    instruction_template: |\n      Read {report:missing.md} and {report:plan.md}\n"
        "    output_contracts:\n      report:\n        - name: plan.md\n          format: plan\n"
        "    rules:\n      - condition: ok\n        next: b\n      - condition: no\n        next: ghost\n"
        "  - name: b\n    persona: no-such-persona\n    edit: false\n"
        "    parallel:\n      - name: s\n        rules:\n          - condition: x\n            next: a\n"
        '    rules:\n      - condition: all("x")\n        next: COMPLETE\n      - condition: nothing\n'
        "loop_monitors:\n  - cycle: [a, zz]\n    threshold: 3\n"
    )
    diags = lint_file(p, None, "p.yaml")
    got = {(d.code, d.line, d.severity) for d in diags}
    assert ("unknown-movement", 3, "error") in got  # initial_movement
    assert ("unknown-report", 8, "error") in got
    assert ("unknown-movement", 18, "error") in got  # next: ghost
    assert ("unresolved-facet", 20, "warning") in got
    assert ("ignored-next", 26, "warning") in got
    assert ("missing-next", 30, "error") in got
    assert ("unknown-movement", 32, "error") in got  # loop monitor names zz
    assert not any(d.code == "unresolved-facet" and d.line == 6 for d in diags)  # coder resolves


def test_proposal_payload_is_validated_as_its_kind(tmp_path: Path) -> None:
    p = tmp_path / "knowledge_base" / "inbox" / "prop-1.yaml"
    p.parent.mkdir(parents=True)
    p.write_text(
        "id: prop-1\ncreated_at: 2026-01-01T00:00:00Z\nkind: skill\ntarget: ../../etc/passwd\n"
        "payload:\n  name: no id\n  content: text\nstatus: pending\n"
    )
    got = {(d.code, d.line) for d in lint_file(p, None, "prop-1.yaml")}
    assert ("target-outside", 4) in got
    assert ("missing-field", 5) in got  # payload.skill_id


def _id_date_warnings(date: str) -> list[str]:
    sink = DiagnosticSink("sessions.jsonl")
    check_id_date({"id": "ses-20261105-001", "date": date}, 3, sink)
    return [d.message for d in sink.items if d.code == "id-date-mismatch"]


def test_id_date_is_compared_with_the_day_the_date_names() -> None:
    # the day as written, whatever the time, zone or ISO form around it
    for same in ("2026-11-05", "2026-11-05T23:30:00-05:00", "20261105T103000Z", " 2026-11-05 "):
        assert _id_date_warnings(same) == [], same
    assert _id_date_warnings("2026-11-06T00:30:00+09:00") == [
        "id 'ses-20261105-001' carries the date 2026-11-05 but the record is dated "
        "2026-11-06; the date field is what counts"
    ]
