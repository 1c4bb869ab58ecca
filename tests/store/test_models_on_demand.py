"""A format's models are built when a file of that format is read, not before (issue #18):
``show`` and ``approve`` of a report build the KPT models alone, not every format's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "assets" / "demo"


def _models_after(code: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", code + "\nprint(json.dumps(sorted(sys.modules)))"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    names = json.loads(done.stdout.strip().splitlines()[-1])
    return [n for n in names if n.startswith("store.models.")]


def test_reading_a_report_builds_the_kpt_models_alone() -> None:
    report = next((DEMO / "hurikaeri").glob("kpt-*.yaml"))
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from store.read.loader import load_file\n"
        f"got = load_file(Path({str(report)!r}))\n"
        "assert got.doc is not None and type(got.doc).__name__ == 'KptReport'\n"
    )
    models = _models_after(code)
    assert "store.models.kpt" in models
    for other in ("lessons", "knowledge", "feedback", "piece", "proposal", "metablock"):
        assert f"store.models.{other}" not in models, models


def test_approving_an_item_reads_no_inbox(tmp_path: Path) -> None:
    """``approve KPT_ID/ITEM_ID`` names no proposal: the inbox and its models stay unread."""
    import shutil

    root = tmp_path / "ws"
    shutil.copytree(DEMO, root)
    report = sorted((root / "hurikaeri").glob("kpt-*.yaml"))[0].stem
    code = (
        "import json, sys\n"
        "from tui.cli.main import main\n"
        f"assert main(['approve', '{report}/keep-001', '--root', {str(root)!r}]) == 0\n"
        "assert 'store.review.inbox' not in sys.modules\n"
    )
    models = _models_after(code)
    assert "store.models.kpt" in models and "store.models.proposal" not in models, models
    ledger = (root / ".hurikaeri" / "ledger.jsonl").read_text(encoding="utf-8")
    assert f"{report}/keep-001" in ledger.splitlines()[-1]


def test_every_kind_still_has_its_model() -> None:
    from store.read.kinds import Kind
    from store.read.loader import MODEL_NAMES, model_of

    assert model_of(Kind.KPT).__name__ == "KptReport"
    assert {k: model_of(k).__name__ for k in MODEL_NAMES} == MODEL_NAMES
    assert len(MODEL_NAMES) == 11
