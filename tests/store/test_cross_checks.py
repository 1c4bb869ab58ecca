"""Cross-checks of the lint beyond each file's model."""

from __future__ import annotations

import shutil
from pathlib import Path

from store.check.files import lint_file
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
