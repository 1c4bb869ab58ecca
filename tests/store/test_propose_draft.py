"""``R`` drafts a skill from a try-item's rule: named for what it teaches, with triggers (#41).

An empty ``triggers`` never loads the skill (seed 003 matches keywords, file patterns and
task types), so the draft fills them from the rule and the report; the rule text is the one
a promotion starts from, not the agent's instruction about a file."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from store.index.sessions import Session
from store.models import KptReport
from store.read.loader import load_file
from store.review.propose import draft_proposal
from tests.conftest import DEMO


def _draft(report_id: str, item_id: str) -> dict[str, Any]:
    doc = load_file(DEMO / "hurikaeri" / f"{report_id}.yaml").doc
    assert isinstance(doc, KptReport)
    item = next(t for t in doc.section("try") if t.id == item_id)
    session = SimpleNamespace(report=SimpleNamespace(doc=doc), project="p", session_id="s")
    return draft_proposal(cast(Session, session), "try", item)


def test_a_quoted_rule_is_the_content_and_the_name_is_its_subject() -> None:
    d = _draft("kpt-20261118-001", "try-002")  # CLAUDE.md の…に「…」を追記する
    payload = d["payload"]
    assert "- リフレッシュトークンは不透明トークンで DB 管理\n" in payload["content"]
    assert "追記" not in payload["content"]
    assert payload["name"] == "リフレッシュトークン"
    assert payload["triggers"]["keywords"]
    assert payload["triggers"]["file_patterns"] == []  # CLAUDE.md is where, not what
    assert {"bug_fix", "security_review"} <= set(payload["triggers"]["task_types"])
    assert d["target"] != "knowledge_base/global/skills/learning.yaml"


def test_triggers_from_the_rule_and_the_report() -> None:
    t = _draft("kpt-20261028-001", "try-002")["payload"]  # 認証系の…は src/errors.ts の…
    assert t["name"] == "認証系のステータスコード"
    assert t["triggers"]["file_patterns"] == ["src/errors.ts"]
    assert "ステータスコード" in t["triggers"]["keywords"]
    assert "code_implementation" in t["triggers"]["task_types"]  # the report: 実装
    t = _draft("kpt-20261110-002", "try-001")["payload"]  # grep package.json / pyproject.toml
    assert t["triggers"]["file_patterns"] == ["**/package.json", "**/pyproject.toml"]
    assert "pnpm" in t["triggers"]["keywords"]
    t = _draft("kpt-20261030-002", "try-001")["payload"]  # Redis 카운터/버킷은 … Lua …
    assert t["name"] == "Redis 카운터/버킷"
    assert t["triggers"]["keywords"][:3] == ["Redis", "Lua", "EVALSHA"]
    assert t["skill_id"] == "redis"


def test_task_types_only_when_the_report_says_them() -> None:
    t = _draft("kpt-20261106-001", "try-002")["payload"]  # "Fixed fct_sessions (dbt …)"
    assert {"bug_fix", "data_pipeline"} <= set(t["triggers"]["task_types"])
    t = _draft("kpt-20261104-001", "try-001")["payload"]
    assert "security_review" not in t["triggers"]["task_types"]
