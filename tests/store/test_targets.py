"""The files agents load (issue 21): found, measured against budgets, and their findings —
duplicates, stale paths and commands, untouched files, secrets — on files written like real
ones (CRLF, BOM, front matter, code fences); the merge action; secrets refused before any
write of agent text."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import store.insight.duplicates as duplicates
from screens.dialogs.budget_prompt import falling_out
from store.check.secrets import SecretFound, added_lines, mask, scan_text
from store.config import Config, ConfigError, parse_config
from store.insight.budgets import check_budget
from store.insight.duplicates import find_duplicates
from store.insight.staleness import command_refs, path_refs
from store.insight.target_report import TargetsCache, build_report
from store.insight.targets import Rule, list_targets, markdown_rules, project_slug, read_target
from store.ledger import Ledger
from store.review.dedupe import apply_merge, plan_merge
from store.review.inbox import decide_proposals, find_proposal, plan_decision
from store.review.items import ReviewError, find_item
from store.review.person_report import check_person_report, write_person_report
from store.review.promote import plan_promotion, promote_plans
from store.review.wrapup import import_wrapup
from store.tx import transactions
from store.workspace import Workspace

# made at run time so that no scanner flags this file itself
GH_TOKEN = "ghp_" + "zjgHWbmPZe9gwWQaq5mcdkU1gJQV3hDKJnQu"
DB_URL = "postgres://admin:" + "Xk9Lq2Rt7Wz1Pq" + "@db.internal:5432/app"


def _project(tmp_path: Path) -> Path:
    proj = tmp_path / "src" / "app"
    (proj / ".claude" / "rules").mkdir(parents=True)
    (proj / "src" / "middleware").mkdir(parents=True)
    (proj / "src" / "middleware" / "session.ts").write_text("x")
    return proj


def _ws(tmp_path: Path, **config: object) -> tuple[Workspace, Path]:
    root = tmp_path / "claude"
    root.mkdir()
    proj = _project(tmp_path)
    cfg = Config(projects=[proj], **config)  # type: ignore[arg-type]
    return Workspace(root, cfg), proj


def _write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


# -- finding and reading -------------------------------------------------------------


def test_every_kind_of_target_is_found(tmp_path: Path) -> None:
    ws, proj = _ws(tmp_path)
    root = ws.root
    _write(root / "CLAUDE.md", "# global\n- be brief\n")
    _write(root / "rules" / "style.md", "- tabs\n")
    _write(root / "skills" / "deploy" / "SKILL.md", "---\nname: deploy\n---\n- ship\n")
    _write(root / "projects" / project_slug(proj) / "memory" / "MEMORY.md", "- x\n")
    _write(root / "knowledge_base" / "global" / "skills" / "a.yaml", "id: a\ncontent: '- y'\n")
    _write(root / "memory" / "app" / "project_memory.yaml", "project_id: app\n")
    _write(proj / "CLAUDE.md", "- p\n")
    _write(proj / ".claude" / "rules" / "api.md", "- r\n")
    _write(proj / "AGENTS.md", "- a\n")
    _write(proj / ".claude" / "skills" / "lint" / "SKILL.md", "- s\n")
    found = {ws.display(t.path): (t.kind, t.project) for t in list_targets(ws)}
    assert found[("CLAUDE.md")] == ("claude_md", None)
    assert found["rules/style.md"] == ("rules", None)
    assert found["skills/deploy/SKILL.md"] == ("skill_md", None)
    assert found[f"projects/{project_slug(proj)}/memory/MEMORY.md"] == ("memory_md", proj)
    assert found["knowledge_base/global/skills/a.yaml"][0] == "skill_yaml"
    assert found["memory/app/project_memory.yaml"] == ("project_memory", proj)
    assert found[str(proj / "CLAUDE.md")] == ("claude_md", proj)
    assert found[str(proj / ".claude" / "rules" / "api.md")] == ("rules", proj)
    assert found[str(proj / "AGENTS.md")] == ("agents_md", proj)
    assert found[str(proj / ".claude" / "skills" / "lint" / "SKILL.md")] == ("skill_md", proj)


def test_bullets_skip_front_matter_fences_and_comments_in_crlf_with_bom() -> None:
    text = (
        "\ufeff---\r\ntitle: x\r\n- not a rule\r\n---\r\n# Rules\r\n- one\r\n"
        "```sh\r\n- not a rule either\r\n```\r\n<!--\r\n- hidden\r\n-->\r\n"
        "  * two\r\n1. three\r\n- [x] four\r\n"
    ).removeprefix("\ufeff")
    rules = markdown_rules(text.splitlines(), Path("x.md"))
    assert [(r.line, r.text) for r in rules] == [
        (6, "one"),
        (13, "two"),
        (14, "three"),
        (15, "four"),
    ]


def test_bullets_inside_xml_style_tags_are_rules() -> None:
    """CLAUDE.md files wrap rules in tags the model reads (``<rules>``, ``<important if=…>``);
    CommonMark would read each tag to the next blank line as an HTML block, no list items."""
    text = (
        "# Project\n\n<rules>\n- Always run `make test` before a commit\n- Never edit dist/\n"
        '</rules>\n\n<important if="you touch the API">\n- Use pnpm, not npm\n</important>\n'
        "Steps:\n2. run make\n"
    )
    rules = markdown_rules(text.splitlines(), Path("CLAUDE.md"))
    assert [(r.line, r.text) for r in rules] == [
        (4, "Always run `make test` before a commit"),
        (5, "Never edit dist/"),
        (9, "Use pnpm, not npm"),
        (12, "run make"),
    ]


def test_reading_keeps_lines_of_the_file_and_rules_of_yaml(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    _write(
        ws.root / "knowledge_base" / "global" / "skills" / "s.yaml",
        "id: s\nversion: 2\ncontent: |\n  ## Steps\n  - rotate the key\n  - keep kid\n",
    )
    _write(
        ws.root / "memory" / "app" / "project_memory.yaml",
        "project_id: app\nlearned_behaviors:\n  - trigger: t\n    behavior: run the linter\n",
    )
    texts = {t.path.name: read_target(t) for t in list_targets(ws)}
    assert [(r.line, r.text) for r in texts["s.yaml"].rules] == [
        (5, "rotate the key"),
        (6, "keep kid"),
    ]
    assert [(r.line, r.text) for r in texts["project_memory.yaml"].rules] == [(4, "run the linter")]


# -- budgets ---------------------------------------------------------------------------


def test_memory_md_over_200_lines_says_which_lines_the_agent_does_not_load(
    tmp_path: Path,
) -> None:
    ws, proj = _ws(tmp_path)
    lines = "".join(f"- memory {i}\r\n" for i in range(1, 206))
    _write(ws.root / "projects" / project_slug(proj) / "memory" / "MEMORY.md", "\ufeff" + lines)
    report = build_report(ws, cache=TargetsCache())
    (row,) = report.rows
    (budget,) = [f for f in row.findings if f.kind == "budget"]
    assert budget.severity == "error" and budget.line == 201
    assert "205/200 lines" in budget.message


def test_a_write_that_crosses_the_budget_lists_the_lines_falling_out(tmp_path: Path) -> None:
    ws, proj = _ws(tmp_path)
    path = ws.root / "projects" / project_slug(proj) / "memory" / "MEMORY.md"
    before = "".join(f"- m{i}\n" for i in range(1, 200)).encode()  # 199 lines
    after = b"- newest first\n- second\n" + before
    check = check_budget(ws, path, before, after)
    assert (check.before, check.after, check.crosses) == (199, 201, True)
    assert check.falls_out == [(201, "- m199")]
    assert "no longer loads" in falling_out([check])
    within = check_budget(ws, path, before, before + b"- one more\n")
    assert not within.crosses and within.falls_out == []


def test_claude_md_budget_is_in_tokens_and_configurable(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path, budgets={"claude_md": 50})
    path = ws.root / "CLAUDE.md"
    check = check_budget(ws, path, b"- short\n", b"- short\n" + b"- " + b"word " * 60 + b"\n")
    assert check.budget is not None and check.budget.unit == "tokens"
    assert check.crosses and check.falls_out[0][0] == 2


def test_config_reads_projects_budgets_and_stale_days(tmp_path: Path) -> None:
    cfg = parse_config(
        {"projects": ["~/src/app"], "budgets": {"memory_md": 150}, "targets": {"stale_days": 30}},
        tmp_path / "c.toml",
    )
    assert cfg.projects[0].name == "app" and cfg.budgets == {"memory_md": 150}
    assert cfg.stale_days == 30
    assert parse_config({"projects": {"dirs": ["/x"]}}, tmp_path / "c.toml").projects == [
        Path("/x")
    ]
    with pytest.raises(ConfigError, match="not a target kind"):
        parse_config({"budgets": {"readme": 3}}, tmp_path / "c.toml")
    with pytest.raises(ConfigError, match="positive"):
        parse_config({"budgets": {"claude_md": -1}}, tmp_path / "c.toml")


# -- duplicates ------------------------------------------------------------------------


def test_duplicates_across_claude_md_and_a_skill_in_three_languages(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    _write(
        ws.root / "CLAUDE.md",
        (
            "\ufeff# Rules\r\n- Always run the tests before committing.\r\n"
            "- コミット前に必ずテストを実行する\r\n- 커밋 전에 반드시 테스트를 실행한다\r\n"
            "```\r\n- Always run the tests before committing.\r\n```\r\n"
        ).encode(),
    )
    _write(
        ws.root / "skills" / "git" / "SKILL.md",
        "---\nname: git\n---\n- always run the tests before committing\n"
        "- コミット前には必ずテストを実行すること\n- 커밋 전에는 반드시 테스트를 실행한다\n"
        "- unrelated rule about naming branches\n",
    )
    report = build_report(ws, cache=TargetsCache())
    groups = [sorted((r.path.name, r.line) for r in g.rules) for g in report.duplicates]
    assert [("CLAUDE.md", 2), ("SKILL.md", 4)] in groups  # exact once normalised
    assert [("CLAUDE.md", 3), ("SKILL.md", 5)] in groups  # Japanese, near
    assert [("CLAUDE.md", 4), ("SKILL.md", 6)] in groups  # Korean, near
    assert all(len(g) == 2 for g in groups)  # the fenced copy is not a rule
    claude = report.row(ws.root / "CLAUDE.md")
    assert claude is not None and claude.counts["duplicate"] == 3


def test_merge_keeps_one_wording_removes_the_others_and_undoes(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    claude = _write(
        ws.root / "CLAUDE.md",
        b"\xef\xbb\xbf- Use uv for everything.\r\n  (pip is not installed)\r\n- keep\r\nno newline",
    )
    skill = _write(ws.root / "skills" / "py" / "SKILL.md", "- use uv for everything\n- other\n")
    before_claude = claude.read_bytes()
    report = build_report(ws, cache=TargetsCache())
    (group,) = report.duplicates
    keep = next(r for r in group.rules if r.path == skill)
    plan = plan_merge(ws, group.rules, keep)
    assert "-- a/CLAUDE.md" in plan.diff(ws) or "a/CLAUDE.md" in plan.diff(ws)
    result = apply_merge(ws, plan)
    assert claude.read_bytes() == b"\xef\xbb\xbf- keep\r\nno newline"
    assert skill.read_text() == "- use uv for everything\n- other\n"
    transactions.undo(ws, result.id)
    assert claude.read_bytes() == before_claude


def test_merge_refuses_a_line_that_changed_since(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    a = _write(ws.root / "CLAUDE.md", "- same rule here\n")
    b = _write(ws.root / "rules" / "x.md", "- same rule here\n")
    rules = [Rule(a, 1, "same rule here"), Rule(b, 1, "same rule here")]
    b.write_text("- something else\n")
    with pytest.raises(ReviewError, match="changed since"):
        plan_merge(ws, rules, rules[0])


def test_near_duplicates_scale_by_candidates_not_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    rnd = random.Random(1)
    vocab = [f"w{n}x{n * 7 % 13}" for n in range(800)]
    texts = [" ".join(rnd.choice(vocab) for _ in range(8)) for _ in range(3000)]
    rules = [Rule(Path(f"f{i % 50}.md"), i, t) for i, t in enumerate(texts)]
    rules.append(Rule(Path("g.md"), 1, texts[5] + "!"))
    scored: list[str] = []
    ratio = duplicates.fuzz.ratio

    def counting(a: str, b: str, **kw: Any) -> float:
        scored.append(a)
        return ratio(a, b, **kw)

    monkeypatch.setattr(duplicates, "fuzz", SimpleNamespace(ratio=counting))
    groups = find_duplicates(rules)
    # the pairs scored are a few per rule, not every pair (4.5 million)
    assert len(scored) < 50 * len(rules), len(scored)
    assert any({r.path.name for r in g.rules} == {"f5.md", "g.md"} for g in groups)


# -- staleness -------------------------------------------------------------------------


def test_stale_paths_and_commands_are_flagged_existing_ones_not(tmp_path: Path) -> None:
    ws, proj = _ws(tmp_path)
    _write(
        proj / "CLAUDE.md",
        "- auth lives in `src/middleware/auth.ts`\n- sessions: src/middleware/session.ts\n"
        "- run `surely-not-a-command-xyz --fix` first\n- run `python3 -m pytest`\n"
        "- see https://example.org/docs/a.md and CI/CD\n- endpoint /auth/login\n",
    )
    report = build_report(ws, cache=TargetsCache())
    found = sorted((f.kind, f.line) for f in report.findings if f.kind.startswith("stale"))
    assert found == [("stale-command", 3), ("stale-path", 1)]


def test_references_are_read_like_people_write_them() -> None:
    assert path_refs("see scripts/settings.py, then ./tools/x") == [
        "scripts/settings.py",
        "./tools/x",
    ]
    assert path_refs("and/or, I/O, github.com/a/b, 1/2.5, src/*.ts, <slug>/x.md") == []
    assert command_refs("`uv run pytest` `import os` `ls` `a = b`") == ["uv"]
    # takeuchi-shogo/dotfiles' absorb skill: a choice of states, not a command
    assert command_refs("`implemented / superseded / narrowed / retired / kept`") == []
    assert command_refs("`find / -name x` `zzq-du -sh /` `zzq-cargo check / build`") == [
        "find",
        "zzq-du",
        "zzq-cargo",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Settings live in `.claude/settings.json`.",
        "Edit .cargo/config.toml for the linker",
        "nginx config is conf.d/site.conf",
    ],
)
def test_a_path_through_a_dot_folder_is_a_path_not_file_names_joined(text: str) -> None:
    """``spec.json/requirements.md`` names three files; a folder (``.claude``, ``conf.d``)
    before a file name is a path to check."""
    assert len(path_refs(text)) == 1


def test_a_pipeline_after_a_script_names_its_programs() -> None:
    """``V | undefined`` is a type; ``./check.sh | mytool`` a pipeline whose programs are
    checked."""
    assert command_refs("`./scripts/check.sh | mytool --x`") == ["mytool"]
    assert command_refs("`V | undefined`") == []


def test_a_target_nobody_touched_for_long_is_flagged(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path, stale_days=30)
    path = _write(ws.root / "CLAUDE.md", "- old rule\n")
    old = time.time() - 40 * 86400
    os.utime(path, (old, old))
    report = build_report(ws, cache=TargetsCache())
    assert [f.kind for f in report.findings] == ["untouched"]


# -- secrets ---------------------------------------------------------------------------


def test_secrets_in_targets_are_found_masked_even_in_code_fences(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    _write(
        ws.root / "CLAUDE.md", f"# Ops\r\n```\r\nexport GH={GH_TOKEN}\r\n```\r\n- db: {DB_URL}\r\n"
    )
    report = build_report(ws, cache=TargetsCache())
    secrets = [f for f in report.findings if f.kind == "secret"]
    assert [f.line for f in secrets] == [3, 5]
    text = json.dumps(report.as_json(ws))
    assert GH_TOKEN not in text and "Xk9Lq2Rt7Wz1Pq" not in text
    assert "ghp_" in secrets[0].message


def test_mask_and_added_lines() -> None:
    assert mask(GH_TOKEN).startswith("ghp_") and mask(GH_TOKEN).endswith("Qu")
    assert "zjgH" not in mask(GH_TOKEN)
    assert added_lines(b"a\nb\n", b"a\nx\nb\nb\n") == [(2, "x"), (4, "b")]
    assert scan_text("- keep the tests green") == []


def _kpt(root: Path, description: str, path: str = "CLAUDE.md") -> None:
    _write(
        root / "hurikaeri" / "kpt-20260101-001.yaml",
        "id: kpt-20260101-001\nproblem: []\nomission: []\n"
        f"try:\n  - id: try-001\n    description: {json.dumps(description)}\n"
        "    addresses: []\n    scope: global\n"
        f"    persistence_target: {{type: claude_md, path: '{path}', section: '## Ops'}}\n",
    )


def test_promotion_of_a_secret_is_refused_and_nothing_written(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    claude = _write(ws.root / "CLAUDE.md", "# Ops\r\n- existing\r\n")
    before = claude.read_bytes()
    _kpt(ws.root, f"use token {GH_TOKEN} for the CI")
    ref = find_item(ws, "kpt-20260101-001/try-001")
    plan = plan_promotion(ws, ref)
    assert plan.status == "refused" and "github-pat" in plan.message
    assert GH_TOKEN not in plan.message and "ghp_" in plan.message
    assert promote_plans(ws, [plan]) is None
    assert claude.read_bytes() == before
    overridden = plan_promotion(ws, ref, allow_secrets=True)
    assert overridden.status == "write"


def test_a_secret_already_in_the_target_does_not_block_other_promotions(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    _write(ws.root / "CLAUDE.md", f"# Ops\n- db {DB_URL}\n")
    _kpt(ws.root, "rotate keys every quarter")
    assert plan_promotion(ws, find_item(ws, "kpt-20260101-001/try-001")).status == "write"


def test_proposal_approval_with_a_secret_is_refused(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    prop = _write(
        ws.root / "knowledge_base" / "inbox" / "prop-20260101-001.yaml",
        "id: prop-20260101-001\nkind: skill\ntitle: t\nstatus: pending\n"
        "target: knowledge_base/global/skills/ci.yaml\n"
        f"payload:\n  skill_id: ci\n  name: ci\n  content: 'use {GH_TOKEN}'\n",
    )
    before = prop.read_bytes()
    plan = plan_decision(ws, find_proposal(ws, "prop-20260101-001"), "approve")
    assert plan.refused and "github-pat" in plan.refused
    with pytest.raises(ReviewError):
        decide_proposals(ws, [plan])
    assert prop.read_bytes() == before
    assert not (ws.root / "knowledge_base" / "global" / "skills" / "ci.yaml").exists()


def test_wrapup_import_and_person_report_with_a_secret_are_refused(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    data = {
        "session_id": "s1",
        "project": "/src/app",
        "date": "2026-01-01T10:00:00+09:00",
        "summary": {"info": [f"connected with {DB_URL}"]},
        "user_lessons": [],
        "ai_lessons": [],
    }
    with pytest.raises(SecretFound, match="generic-credential-uri"):
        import_wrapup(ws, json.dumps(data))
    assert not (ws.root / "session-summaries").exists()
    report = f"id: kpt-20260101-009\nkeep: []\nproblem: []\ntry:\n  - id: try-001\n    description: use {GH_TOKEN}\n"
    assert any(d.code == "secret" for d in check_person_report(ws, "kpt-20260101-009", report))
    with pytest.raises(SecretFound):
        write_person_report(ws, Ledger(ws.state_dir), "kpt-20260101-009", report)
    assert not (ws.root / "hurikaeri" / "kpt-20260101-009.yaml").exists()


def test_merge_says_in_one_line_why_a_file_cannot_be_read(tmp_path: Path) -> None:
    ws, _ = _ws(tmp_path)
    a = _write(ws.root / "CLAUDE.md", "- same rule here\n")
    b = _write(ws.root / "rules" / "x.md", "- same rule here\n")
    rules = [Rule(a, 1, "same rule here"), Rule(b, 1, "same rule here")]
    b.unlink()
    with pytest.raises(ReviewError) as told:
        plan_merge(ws, rules, rules[0])
    assert str(told.value) == "rules/x.md: cannot read: No such file or directory"


def test_a_path_logged_to_is_made_by_the_rule_a_path_to_log_in_with_is_not() -> None:
    """Found by the outside review: "log in to", "… go to" and "分離済み" (split out
    already, so it is there) had come to hide a path that may be stale."""
    made = [
        "Errors are logged to `logs/app.log`",
        "The script logs its progress to `out/progress.txt`",
        "It downloads the model into `models/x.bin`",
        "認証処理は `src/auth/handler.ts` へ分離する",
    ]
    named = [
        ("Log in to `scripts/login.sh` first", "scripts/login.sh"),
        ("For download instructions go to `docs/setup.md`", "docs/setup.md"),
        ("See the logging docs, then go to `docs/logging.md`", "docs/logging.md"),
        ("認証処理は `src/auth/handler.ts` に分離済み", "src/auth/handler.ts"),
    ]
    assert [path_refs(t) for t in made] == [[]] * len(made)
    assert [path_refs(t) for t, _p in named] == [[p] for _t, p in named]
