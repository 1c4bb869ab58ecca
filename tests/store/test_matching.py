"""Seed 003's SkillMatcher (store.insight.matching): every score computed by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from store.insight.matching import (
    Knowledge,
    MatchTask,
    all_scores,
    applicable_patterns,
    load_knowledge,
    match,
    score_skill,
)
from store.models import Skill
from store.workspace import Workspace

GLOBAL = Path("knowledge_base/global")


def _write(root: Path, rel: Path | str, doc: Any) -> Path:
    """JSON is YAML 1.2: documents are written as JSON into ``.yaml`` files."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def _skill(
    root: Path,
    skill_id: str,
    keywords: list[str] | None = None,
    files: list[str] | None = None,
    types: list[str] | None = None,
    rate: float | None = None,
    where: Path = GLOBAL / "skills",
) -> Path:
    doc: dict[str, Any] = {
        "skill_id": skill_id,
        "name": skill_id.replace("_", " "),
        "triggers": {
            "keywords": keywords or [],
            "file_patterns": files or [],
            "task_types": types or [],
        },
        "content": "## x\n- y\n",
    }
    if rate is not None:
        doc["stats"] = {"times_loaded": 1, "success_rate": rate}
    return _write(root, where / f"{skill_id}.yaml", doc)


def _one(tmp_path: Path, task: MatchTask, **kw: Any) -> Any:
    _skill(tmp_path, "s", **kw)
    k = load_knowledge(Workspace(tmp_path))
    assert len(k.skills) == 1
    return all_scores(k, task)[0]


def test_keywords_are_case_insensitive_substrings_of_objective_and_description(
    tmp_path: Path,
) -> None:
    task = MatchTask("Add a JUMP to the player", description="only when grounded")
    s = _one(tmp_path, task, keywords=["jump", "Grounded", "dash", "player c", ""])
    assert s.keywords == ("jump", "Grounded")
    assert s.raw == 0.6
    assert s.file_matches == () and not s.type_matched
    assert s.success_rate == 1.0 and s.success_rate_assumed
    assert s.score == 0.6 and s.kept


def test_every_pattern_file_pair_counts(tmp_path: Path) -> None:
    task = MatchTask(
        "refactor",
        files=("Assets/PlayerController.cs", "Assets/EnemyController.cs", "util.py", "README.md"),
    )
    s = _one(tmp_path, task, files=["*Controller.cs", "*.cs", "*.py", "*.txt"], rate=0.5)
    assert s.file_matches == (
        ("*Controller.cs", "Assets/PlayerController.cs"),
        ("*Controller.cs", "Assets/EnemyController.cs"),
        ("*.cs", "Assets/PlayerController.cs"),
        ("*.cs", "Assets/EnemyController.cs"),
        ("*.py", "util.py"),
    )
    assert s.raw == 1.0  # 5 × 0.2
    assert s.score == 0.5 and not s.kept  # × 0.5, exactly at the threshold


def test_the_task_type_matches_exactly(tmp_path: Path) -> None:
    _skill(tmp_path, "s", types=["bug_fix", "data_pipeline"])
    k = load_knowledge(Workspace(tmp_path))
    hit = all_scores(k, MatchTask("x", task_type="bug_fix"))[0]
    assert hit.type_matched and hit.raw == 0.2 and hit.type_points == 0.2
    for other in ("Bug_Fix", "code_implementation", None):
        miss = all_scores(k, MatchTask("x", task_type=other))[0]
        assert not miss.type_matched and miss.raw == 0.0 and miss.score == 0.0


def test_the_success_rate_weights_the_sum(tmp_path: Path) -> None:
    task = MatchTask("fix the jwt auth", files=("src/auth.ts",), task_type="bug_fix")
    s = _one(tmp_path, task, keywords=["jwt", "auth"], files=["src/*.ts"], types=["bug_fix"])
    assert s.raw == 1.0  # 0.6 + 0.2 + 0.2
    skill = Skill.model_validate(
        {"skill_id": "w", "triggers": {"keywords": ["jwt"], "file_patterns": ["src/*.ts"]}}
    )
    skill.stats = None
    assert score_skill(skill, Path("w.yaml"), task).score == 0.5
    weighted = Skill.model_validate(
        {
            "skill_id": "w",
            "triggers": {"keywords": ["jwt", "auth"], "file_patterns": ["src/*.ts"]},
            "stats": {"success_rate": 0.7},
        }
    )
    got = score_skill(weighted, Path("w.yaml"), task)
    assert got.raw == 0.8 and got.success_rate == 0.7 and not got.success_rate_assumed
    assert got.score == 0.56  # 0.8 × 0.7, without binary noise
    assert got.kept


def test_the_score_is_capped_at_one(tmp_path: Path) -> None:
    task = MatchTask("a b c d e")
    s = _one(tmp_path, task, keywords=["a", "b", "c", "d", "e"], rate=0.9)
    assert s.raw == 1.5 and s.keyword_points == 1.5
    assert s.score == 1.0 and s.kept  # 1.35 capped


def test_points_are_exact_tenths(tmp_path: Path) -> None:
    s = _one(tmp_path, MatchTask("x y z"), keywords=["x", "y", "z"])
    assert s.raw == 0.9 and s.keyword_points == 0.9  # not 0.8999999999999999
    assert s.score == 0.9


def test_the_threshold_is_strict(tmp_path: Path) -> None:
    _skill(tmp_path, "half_by_parts", keywords=["cache"], files=["*.py"])  # 0.3 + 0.2
    _skill(tmp_path, "half_by_rate", keywords=["cache", "redis"], types=["perf"], rate=0.625)
    _skill(tmp_path, "two_keywords", keywords=["cache", "redis"])  # 0.6 × 1.0
    k = load_knowledge(Workspace(tmp_path))
    task = MatchTask("redis cache", files=("app.py",), task_type="perf")
    by_id = {s.skill_id: s for s in all_scores(k, task)}
    assert by_id["half_by_parts"].score == 0.5 and not by_id["half_by_parts"].kept
    assert by_id["half_by_rate"].raw == 0.8
    assert by_id["half_by_rate"].score == 0.5 and not by_id["half_by_rate"].kept
    assert by_id["two_keywords"].score == 0.6 and by_id["two_keywords"].kept
    assert [s.skill_id for s in match(k, task)] == ["two_keywords"]


def test_a_missing_success_rate_counts_as_one(tmp_path: Path) -> None:
    _write(
        tmp_path,
        GLOBAL / "skills" / "no_rate.yaml",
        {
            "skill_id": "no_rate",
            "name": "n",
            "triggers": {"keywords": ["deploy"]},
            "content": "c",
            "stats": {"times_loaded": 3},
        },
    )
    _write(
        tmp_path,
        GLOBAL / "skills" / "no_stats.yaml",
        {"skill_id": "no_stats", "name": "n", "triggers": {"keywords": ["deploy"]}, "content": "c"},
    )
    _write(
        tmp_path,
        GLOBAL / "skills" / "no_triggers.yaml",
        {"skill_id": "no_triggers", "name": "n", "content": "c"},
    )
    k = load_knowledge(Workspace(tmp_path))
    by_id = {s.skill_id: s for s in all_scores(k, MatchTask("deploy"))}
    for sid in ("no_rate", "no_stats"):
        assert by_id[sid].success_rate == 1.0 and by_id[sid].success_rate_assumed
        assert by_id[sid].score == 0.3
    assert by_id["no_triggers"].raw == 0.0 and by_id["no_triggers"].score == 0.0


def test_top_five_best_first_ties_by_id(tmp_path: Path) -> None:
    # scores: g 1.0, b 0.9, a 0.6, c 0.6, f 0.6, d 0.6 (cut), e 0.3 (not kept)
    _skill(tmp_path, "g", keywords=["k1", "k2", "k3", "k4"])
    _skill(tmp_path, "b", keywords=["k1", "k2", "k3"])
    for sid in ("f", "a", "d", "c"):
        _skill(tmp_path, sid, keywords=["k1", "k2"])
    _skill(tmp_path, "e", keywords=["k1"])
    k = load_knowledge(Workspace(tmp_path))
    task = MatchTask("k1 k2 k3 k4")
    everything = all_scores(k, task)
    assert [s.skill_id for s in everything] == ["g", "b", "a", "c", "d", "f", "e"]
    assert [s.score for s in everything] == [1.0, 0.9, 0.6, 0.6, 0.6, 0.6, 0.3]
    assert [s.skill_id for s in match(k, task)] == ["g", "b", "a", "c", "d"]
    assert [s.skill_id for s in match(k, task, limit=2)] == ["g", "b"]
    assert match(k, task, limit=0) == []


def test_as_dict_is_json_ready(tmp_path: Path) -> None:
    task = MatchTask("Jump", files=("PlayerController.cs",), task_type="feature_addition")
    s = _one(
        tmp_path,
        task,
        keywords=["jump"],
        files=["*Controller.cs"],
        types=["feature_addition"],
        rate=0.9,
    )
    d = s.as_dict()
    assert json.loads(json.dumps(d)) == d
    assert d == {
        "skill_id": "s",
        "name": "s",
        "path": str(tmp_path / GLOBAL / "skills" / "s.yaml"),
        "score": 0.63,
        "kept": True,
        "raw": 0.7,
        "keyword_points": 0.3,
        "file_points": 0.2,
        "type_points": 0.2,
        "success_rate": 0.9,
        "success_rate_assumed": False,
        "keywords": ["jump"],
        "file_matches": [["*Controller.cs", "PlayerController.cs"]],
        "type_matched": True,
    }


def test_load_knowledge_reads_the_layers_but_not_the_inbox(tmp_path: Path) -> None:
    _skill(tmp_path, "g", keywords=["x"])
    _skill(tmp_path, "grp", keywords=["x"], where=Path("knowledge_base/groups/phase2/code"))
    _skill(tmp_path, "proj", keywords=["x"], where=Path("knowledge_base/projects/p1/learned"))
    _skill(tmp_path, "elsewhere", keywords=["x"], where=Path("knowledge_base/projects/p1/notes"))
    _skill(tmp_path, "proposed", keywords=["x"], where=Path("knowledge_base/inbox"))
    _write(
        tmp_path,
        "knowledge_base/groups/phase1/pat.yaml",
        {"pattern_id": "p", "name": "p", "solution": "s", "tags": ["x"]},
    )
    _write(
        tmp_path,
        "knowledge_base/projects/p1/learned/anti.yaml",
        {"pattern_id": "a", "name": "a", "type": "failure", "bad_approach": "b"},
    )
    broken = tmp_path / GLOBAL / "skills" / "broken.yaml"
    broken.write_text("skill_id: [unclosed\n", encoding="utf-8")
    (tmp_path / GLOBAL / "skills" / "list.yaml").write_text("- 1\n- 2\n", encoding="utf-8")
    k = load_knowledge(Workspace(tmp_path))
    assert sorted(s.skill_id or "" for s, _ in k.skills) == ["g", "grp", "proj"]
    assert [p.pattern_id for p, _ in k.patterns] == ["p"]
    assert [a.pattern_id for a, _ in k.anti_patterns] == ["a"]
    assert all(path.is_absolute() for _, path in k.skills)


def _patterns(root: Path) -> Knowledge:
    _write(
        root,
        GLOBAL / "patterns" / "token_bucket_lua_script.yaml",
        {
            "pattern_id": "token_bucket_lua_script",
            "name": "bucket",
            "type": "success",
            "solution": "s",
            "tags": ["redis", "rate_limiting"],
        },
    )
    _write(
        root,
        GLOBAL / "patterns" / "unity_pool.yaml",
        {"pattern_id": "unity_pool", "name": "pool", "solution": "s", "tags": ["unity"]},
    )
    _write(
        root,
        GLOBAL / "anti_patterns" / "direct_position_manipulation.yaml",
        {
            "pattern_id": "direct_position_manipulation",
            "name": "Transform",
            "type": "failure",
            "bad_approach": "b",
        },
    )
    _write(
        root,
        GLOBAL / "anti_patterns" / "json_dumps_in_jsonl.yaml",
        {"pattern_id": "json_dumps_in_jsonl", "name": "j", "type": "failure", "bad_approach": "b"},
    )
    return load_knowledge(Workspace(root))


def _hits(k: Knowledge, task: MatchTask) -> dict[str, tuple[str, tuple[str, ...]]]:
    return {h.pattern_id: (h.kind, h.reasons) for h in applicable_patterns(k, task)}


def test_patterns_apply_by_tag(tmp_path: Path) -> None:
    k = _patterns(tmp_path)
    hits = _hits(k, MatchTask("Redisでレート制限", description="add Rate Limiting to /login"))
    assert hits == {"token_bucket_lua_script": ("pattern", ("redis", "rate_limiting"))}
    # a tag in a file path; id words are not used for a pattern that has tags
    assert _hits(k, MatchTask("speed up", files=("Assets/Unity/Pool.cs",))) == {
        "unity_pool": ("pattern", ("unity",))
    }
    assert _hits(k, MatchTask("a token bucket with a lua script")) == {}
    assert _hits(k, MatchTask("the community forum")) == {}  # "unity" glued to "comm"


def test_anti_patterns_without_tags_apply_by_id_words(tmp_path: Path) -> None:
    k = _patterns(tmp_path)
    task = MatchTask("knockback moves the Position directly", files=("src/json_dumps.py",))
    hits = applicable_patterns(k, task)
    assert [(h.pattern_id, h.kind, h.reasons) for h in hits] == [
        ("json_dumps_in_jsonl", "anti_pattern", ("json", "dumps")),
        ("direct_position_manipulation", "anti_pattern", ("position",)),
    ]
    assert hits[0].name == "j"
    assert hits[0].path == tmp_path / GLOBAL / "anti_patterns" / "json_dumps_in_jsonl.yaml"
    # "in" is too short to count; "json" does not match inside "jsonl"
    assert _hits(k, MatchTask("log in to write jsonl")) == {
        "json_dumps_in_jsonl": ("anti_pattern", ("jsonl",))
    }


def test_demo_skills_on_realistic_tasks(demo_root: Path) -> None:
    k = load_knowledge(Workspace(demo_root))
    ids = {s.skill_id for s, _ in k.skills}
    assert {"jwt_auth_middleware", "utc_partitioning", "windows_utf8_stdio"} <= ids

    jwt = MatchTask(
        "JWT 認証ミドルウェアを追加する",
        "access token を jose で検証する",
        files=("src/middleware/auth.ts",),
        task_type="code_implementation",
    )
    top = match(k, jwt)
    assert top[0].skill_id == "jwt_auth_middleware"
    assert top[0].raw == 1.6 and top[0].success_rate == 0.91
    assert top[0].score == 1.0 and top[0].kept

    # windows_utf8_stdio: two keywords, its file pattern and its task type (raw 1.0) still
    # only reach 0.42, below a skill with a good record at the same raw score.
    mojibake = MatchTask(
        "cp949 UnicodeEncodeError when printing Korean",
        files=("scripts/export.py",),
        task_type="bug_fix",
    )
    utf8 = next(s for s in all_scores(k, mojibake) if s.skill_id == "windows_utf8_stdio")
    assert utf8.raw == 1.0 and utf8.score == 0.42 and not utf8.kept
    assert all(s.skill_id != "windows_utf8_stdio" for s in match(k, mojibake))

    # utc_partitioning (success_rate 0.5): raw 1.0 lands exactly on the threshold
    tz = MatchTask(
        "timezone bug in the datetime column", files=("dags/daily.py",), task_type="bug_fix"
    )
    utc = next(s for s in all_scores(k, tz) if s.skill_id == "utc_partitioning")
    assert utc.keywords == ("timezone", "datetime")
    assert utc.file_matches == (("dags/*.py", "dags/daily.py"),)
    assert utc.raw == 1.0 and utc.score == 0.5 and not utc.kept


def test_demo_patterns(demo_root: Path) -> None:
    k = load_knowledge(Workspace(demo_root))
    task = MatchTask(
        "knockback pushes the player through walls via transform position",
        files=("Assets/Scripts/Unity/PlayerController.cs",),
    )
    hits = _hits(k, task)
    assert hits["direct_position_manipulation"] == ("anti_pattern", ("position",))
    assert hits["object_pool_projectiles"] == ("pattern", ("unity",))
