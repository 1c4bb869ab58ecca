"""Generate a realistic hurikaeri workspace of any size, deterministically from a seed.

    uv run python -m benchmarks.generate OUT_DIR --reports 10000 --lessons 100000 [--seed 1]

Every format the app reads is written: KPT reports (with the drift model-written YAML has:
wrong case, missing fields, unknown values, an unquoted ``": "``), prompt-improver feedback,
session summaries per project, user and AI lessons (a few pretty-printed over several lines,
ids with the wrong date), knowledge-base skills, patterns and anti-patterns, project memory,
inbox proposals, discussions ending in a metadata block, TAKT pieces with facets, and a
decision ledger. Text is Japanese, Korean and English (mixed within a session, as in real
use), with realistic field lengths, identifiers, paths and error names, and *recurring
learnings*: the same lesson recorded again in later sessions, verbatim or with small drift.

Files are written from plain string templates (no YAML dumper) by a pool of processes; the
output depends only on the seed and the sizes, not on the number of workers.
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta
from pathlib import Path

CHUNK = 250  # sessions per work unit (fixed, so output does not depend on the worker count)
START = date(2025, 1, 6)
SPAN_DAYS = 700

# -- vocabulary ----------------------------------------------------------------------------

PROJECTS = [
    ("harbor-api", "c:/work/harbor-api", "ja", "auth"),
    ("pixel-courier", "d:/unity/pixel-courier", "en", "unity"),
    ("tidewater-etl", "/home/dev/tidewater-etl", "en", "etl"),
    ("lesson-learned", "z:/_ai/skills/lesson-learned", "ko", "encoding"),
    ("kumo-frontend", "/Users/aki/src/kumo-frontend", "ja", "frontend"),
    ("seoul-metrics", "/srv/seoul-metrics", "ko", "infra"),
    ("orchard-billing", "/home/dev/orchard-billing", "en", "db"),
    ("hanabi-bot", "c:/work/hanabi-bot", "ja", "testing"),
    ("bada-search", "/Users/minji/bada-search", "ko", "search"),
    ("ledgerline", "/home/dev/ledgerline", "en", "db"),
    ("sakura-mobile", "/Users/aki/src/sakura-mobile", "ja", "frontend"),
    ("river-ci", "/srv/river-ci", "en", "infra"),
    ("namu-wiki-sync", "/home/jh/namu-wiki-sync", "ko", "etl"),
    ("tsubame-gateway", "c:/work/tsubame-gateway", "ja", "auth"),
    ("quill-docs", "/home/dev/quill-docs", "en", "testing"),
    ("hangang-games", "d:/unity/hangang-games", "ko", "unity"),
]

COMPONENTS = {
    "auth": [
        "JWT middleware",
        "refresh token rotation",
        "JWKS cache",
        "session store",
        "OAuth callback",
        "CORS config",
        "rate limiter",
    ],
    "unity": [
        "PlayerController",
        "ground check",
        "Addressables loader",
        "Input System",
        "object pool",
        "coyote time",
        "camera rig",
    ],
    "etl": [
        "nightly rollup",
        "parquet writer",
        "dedup step",
        "warehouse load",
        "schema validation",
        "partition pruning",
        "S3 sync",
    ],
    "encoding": [
        "save-wrapup.py",
        "stdout encoding",
        "JSONL writer",
        "read-stats.py",
        "BOM handling",
        "cp949 console",
        "UTF-8 reader",
    ],
    "frontend": [
        "React hook",
        "form validation",
        "i18n bundle",
        "Vite config",
        "service worker",
        "image lazy loading",
        "zustand store",
    ],
    "infra": [
        "Dockerfile",
        "Helm chart",
        "GitHub Actions cache",
        "Prometheus rule",
        "Terraform state",
        "nginx config",
        "systemd unit",
    ],
    "db": [
        "migration script",
        "invoice query",
        "connection pool",
        "Postgres index",
        "transaction retry",
        "ORM session",
        "foreign key",
    ],
    "testing": [
        "pytest fixture",
        "flaky e2e test",
        "snapshot test",
        "mock server",
        "property test",
        "test container",
        "coverage gate",
    ],
    "search": [
        "tokenizer",
        "ranking function",
        "bigram index",
        "query parser",
        "OpenSearch mapping",
        "synonym list",
        "highlighter",
    ],
}
ERRORS = [
    "JWSSignatureVerificationFailed",
    "TypeError: Cannot read properties of undefined",
    "UnicodeEncodeError: 'cp949' codec",
    "JSONDecodeError: Expecting value",
    "OOMKilled",
    "NullReferenceException",
    "ECONNRESET",
    "deadlock detected",
    "MemoryError",
    "ValidationError: 3 validation errors",
    "EACCES /var/run/docker.sock",
    "401 Unauthorized",
    "ModuleNotFoundError: No module named 'duckdb'",
    "SIGKILL (exit 137)",
    "timeout after 30s",
    "IndexError: list index out of range",
    "CORS preflight 403",
    "NOSCRIPT No matching script",
]
TOOLS = ["Read", "Edit", "Write", "Bash", "Grep", "Glob", "WebFetch", "Task", "TodoWrite"]
VERBS = [
    "load",
    "parse",
    "build",
    "fetch",
    "sync",
    "verify",
    "render",
    "merge",
    "flush",
    "retry",
    "apply",
    "resolve",
]
NOUNS = [
    "Token",
    "Config",
    "Stage",
    "Invoice",
    "Player",
    "Bucket",
    "Schema",
    "Report",
    "Lesson",
    "Query",
    "Handle",
    "Frame",
    "Queue",
    "Cache",
    "Route",
]
DIRS = [
    "src",
    "src/auth",
    "src/jobs",
    "Assets/Scripts",
    "scripts",
    "tests",
    "app/api",
    "lib",
    "infra",
]
EXTS = [".ts", ".py", ".cs", ".tsx", ".go", ".sql", ".yaml"]

TEXT = {
    "en": {
        "keep": [
            "Read {file} before touching {comp}, which avoided a second dependency",
            "Wrote a failing test for {comp} first and kept it red until the fix",
            "Asked the user which {comp} behaviour was expected before changing it",
            "Used {func} instead of hand-written retries in {comp}",
            "Split the change to {comp} into three small commits that each passed CI",
            "Checked the logs for {err} before guessing at the cause",
            "Measured {comp} before and after ({num} ms → {num2} ms) instead of assuming",
        ],
        "problem": [
            "Changed {comp} without reading {file} first and duplicated existing logic",
            "Missed {err} in {comp} because the test only covered the happy path",
            "Assumed {comp} was configured per environment; it is global",
            "Spent {num} turns on {comp} before checking the error message ({err})",
            "Wrote {func} with a hard-coded path that broke on Windows",
            "Ignored the timezone in {comp}, so records after 15:00 UTC moved to the next day",
            "Added a retry loop to {comp} that hid {err} instead of fixing it",
        ],
        "root": [
            "The skill for {comp} does not mention {func}",
            "CLAUDE.md says nothing about how {comp} is deployed",
            "Did not read {file} before editing",
            "The error {err} was truncated in the tool output",
            "No test exercises {comp} with real data",
        ],
        "try": [
            "Read {file} and package manifests before adding anything to {comp}",
            "Add a section on {comp} and {func} to the skill",
            "Always reproduce {err} with a test before changing {comp}",
            "Pin versions in {comp} and note them in CLAUDE.md",
            "Run the full test suite after touching {comp}, not only the changed file",
            "Ask which environment {comp} runs in before proposing a fix",
        ],
        "omission": [
            "Did not consider what happens to {comp} when {err} occurs in production",
            "Never checked whether {comp} is used by another service",
            "No rollback plan for the {comp} change",
        ],
        "reasoning": [
            "Only the normal path was considered",
            "The scope looked small",
            "Time pressure from the user",
        ],
        "counterfactual": [
            "What breaks if {comp} fails halfway?",
            "Who else calls {func}?",
            "How do we undo this in production?",
        ],
        "evidence": [
            "turn {num}, {file}",
            "{file} line {num}",
            "turns {num}-{num2}: {err}",
            "user at turn {num}",
        ],
        "summary": [
            "Reworked {comp} in {project}. {err} appeared after the first attempt and was fixed by {func}.",
            "Investigated {comp} in {project}: the cause was {err}; added a regression test and a note.",
            "Implemented {comp} for {project} with tests; {func} replaces the old approach.",
        ],
        "goal": [
            "Fix {err} in {comp}",
            "Make {comp} idempotent",
            "Add tests for {comp}",
            "Document {func}",
        ],
        "title": [
            "{comp}: check {file} before changing it",
            "Why {err} happens in {comp}",
            "{func} is safer than manual retries",
            "Test {comp} with real data",
            "Keep {comp} configuration in one place",
            "Reproduce {err} before fixing",
        ],
        "lsummary": [
            "When working on {comp}, read {file} first; {func} already covers most cases and adding another library caused {err}.",
            "{err} in {comp} came from an unchecked assumption. A failing test made the cause obvious within two turns.",
            "{comp} behaves differently in CI and locally; pin the version and log the effective config at start-up.",
        ],
        "context": [
            "While fixing {comp} at turn {num}",
            "Review of {file}",
            "Asked after {err} appeared",
            "During the {comp} migration",
        ],
        "qa_q": [
            "Why does {comp} fail with {err}?",
            "Should {func} be async?",
            "Where is {comp} configured?",
        ],
        "qa_a": [
            "Because {comp} reads the config before {func} runs.",
            "Yes; it awaits the network call.",
            "In {file}, loaded at start-up.",
        ],
    },
    "ja": {
        "keep": [
            "{comp} を触る前に {file} を読み、依存の重複追加を避けた",
            "{comp} の失敗するテストを先に書き、修正まで赤のまま維持した",
            "{comp} の期待動作をユーザーに確認してから変更した",
            "{comp} で手書きのリトライではなく {func} を使った",
            "{comp} の変更を CI が通る小さなコミット 3 つに分けた",
            "原因を推測する前にログで {err} を確認した",
            "{comp} の前後を計測した（{num} ms → {num2} ms）",
        ],
        "problem": [
            "{file} を読まずに {comp} を変更し、既存のロジックを重複させた",
            "テストが正常系しか見ておらず {comp} の {err} を見逃した",
            "{comp} が環境ごとの設定だと思い込んでいた（実際はグローバル）",
            "エラーメッセージ（{err}）を確認する前に {comp} で {num} ターン使った",
            "{func} にハードコードしたパスが Windows で壊れた",
            "{comp} でタイムゾーンを無視し、UTC 15 時以降のレコードが翌日にずれた",
            "{comp} にリトライを足して {err} を隠してしまった",
        ],
        "root": [
            "{comp} のスキルに {func} の記述がない",
            "CLAUDE.md に {comp} のデプロイ方法が書かれていない",
            "編集前に {file} を読まなかった",
            "ツール出力で {err} が途中で切れていた",
            "実データで {comp} を動かすテストがない",
        ],
        "try": [
            "{comp} に何か足す前に {file} とパッケージ定義を読む",
            "スキルに {comp} と {func} の節を追加する",
            "{comp} を変える前に必ず {err} をテストで再現する",
            "{comp} のバージョンを固定し CLAUDE.md に書く",
            "{comp} を触ったら変更ファイルだけでなく全テストを回す",
            "修正を提案する前に {comp} の実行環境を確認する",
        ],
        "omission": [
            "本番で {err} が起きたとき {comp} がどうなるかを考えていなかった",
            "{comp} を他のサービスが使っているか確認しなかった",
            "{comp} の変更のロールバック手順がない",
        ],
        "reasoning": ["正常系しか考えていなかった", "変更範囲が小さく見えた", "急いでいた"],
        "counterfactual": [
            "{comp} が途中で失敗したら何が壊れる？",
            "{func} を他に誰が呼んでいる？",
            "本番でどう戻す？",
        ],
        "evidence": [
            "ターン {num}、{file}",
            "{file} {num} 行目",
            "ターン {num}-{num2}: {err}",
            "ユーザー指摘（ターン {num}）",
        ],
        "summary": [
            "{project} の {comp} を作り直した。最初の試行で {err} が出たが {func} で解決した。",
            "{project} の {comp} を調査した。原因は {err}。回帰テストとメモを追加した。",
            "{project} に {comp} をテスト付きで実装した。{func} が旧方式を置き換える。",
        ],
        "goal": [
            "{comp} の {err} を直す",
            "{comp} を冪等にする",
            "{comp} のテストを追加",
            "{func} を文書化",
        ],
        "title": [
            "{comp} は変更前に {file} を確認する",
            "{comp} で {err} が起きる理由",
            "手動リトライより {func} が安全",
            "{comp} は実データでテストする",
            "{comp} の設定は一箇所にまとめる",
            "修正前に {err} を再現する",
        ],
        "lsummary": [
            "{comp} を触るときは先に {file} を読む。{func} でほぼ足りており、別ライブラリを足したら {err} になった。",
            "{comp} の {err} は確認していない前提が原因だった。失敗するテストを書いたら 2 ターンで原因が分かった。",
            "{comp} は CI とローカルで挙動が違う。バージョンを固定し、起動時に実効設定をログに出す。",
        ],
        "context": [
            "{comp} 修正中（ターン {num}）",
            "{file} のレビュー",
            "{err} が出た後に質問",
            "{comp} の移行作業中",
        ],
        "qa_q": [
            "{comp} が {err} で落ちるのはなぜ？",
            "{func} は async にすべき？",
            "{comp} の設定はどこ？",
        ],
        "qa_a": [
            "{func} の前に {comp} が設定を読むため。",
            "はい、ネットワーク呼び出しを待つので。",
            "{file} で起動時に読み込む。",
        ],
    },
    "ko": {
        "keep": [
            "{comp} 를 건드리기 전에 {file} 을 읽어 의존성 중복 추가를 피했다",
            "{comp} 의 실패하는 테스트를 먼저 쓰고 수정할 때까지 유지했다",
            "{comp} 의 기대 동작을 사용자에게 확인한 뒤 변경했다",
            "{comp} 에서 직접 만든 재시도 대신 {func} 를 썼다",
            "{comp} 변경을 CI 가 통과하는 작은 커밋 3개로 나눴다",
            "원인을 추측하기 전에 로그에서 {err} 를 확인했다",
            "{comp} 전후를 측정했다 ({num} ms → {num2} ms)",
        ],
        "problem": [
            "{file} 을 읽지 않고 {comp} 를 바꿔 기존 로직을 중복시켰다",
            "테스트가 정상 경로만 봐서 {comp} 의 {err} 를 놓쳤다",
            "{comp} 가 환경별 설정이라고 가정했다 (실제로는 전역)",
            "에러 메시지({err})를 보기 전에 {comp} 에 {num} 턴을 썼다",
            "{func} 에 하드코딩한 경로가 Windows 에서 깨졌다",
            "{comp} 에서 타임존을 무시해 UTC 15시 이후 레코드가 다음 날로 밀렸다",
            "{comp} 에 재시도를 추가해 {err} 를 숨겨 버렸다",
        ],
        "root": [
            "{comp} 스킬에 {func} 설명이 없다",
            "CLAUDE.md 에 {comp} 배포 방법이 없다",
            "편집 전에 {file} 을 읽지 않았다",
            "도구 출력에서 {err} 가 잘렸다",
            "실데이터로 {comp} 를 돌리는 테스트가 없다",
        ],
        "try": [
            "{comp} 에 무언가 추가하기 전에 {file} 과 패키지 정의를 읽는다",
            "스킬에 {comp} 와 {func} 섹션을 추가한다",
            "{comp} 를 바꾸기 전에 반드시 {err} 를 테스트로 재현한다",
            "{comp} 버전을 고정하고 CLAUDE.md 에 적는다",
            "{comp} 를 건드리면 변경 파일만이 아니라 전체 테스트를 돌린다",
            "수정을 제안하기 전에 {comp} 실행 환경을 확인한다",
        ],
        "omission": [
            "운영에서 {err} 가 나면 {comp} 가 어떻게 되는지 생각하지 않았다",
            "{comp} 를 다른 서비스가 쓰는지 확인하지 않았다",
            "{comp} 변경의 롤백 절차가 없다",
        ],
        "reasoning": ["정상 경로만 생각했다", "변경 범위가 작아 보였다", "서둘렀다"],
        "counterfactual": [
            "{comp} 가 중간에 실패하면 무엇이 깨지나?",
            "{func} 를 또 누가 호출하나?",
            "운영에서 어떻게 되돌리나?",
        ],
        "evidence": [
            "턴 {num}, {file}",
            "{file} {num}줄",
            "턴 {num}-{num2}: {err}",
            "사용자 지적 (턴 {num})",
        ],
        "summary": [
            "{project} 의 {comp} 를 다시 만들었다. 첫 시도에서 {err} 가 났지만 {func} 로 해결했다.",
            "{project} 의 {comp} 를 조사했다. 원인은 {err}. 회귀 테스트와 메모를 추가했다.",
            "{project} 에 {comp} 를 테스트와 함께 구현했다. {func} 가 이전 방식을 대체한다.",
        ],
        "goal": [
            "{comp} 의 {err} 수정",
            "{comp} 를 멱등하게",
            "{comp} 테스트 추가",
            "{func} 문서화",
        ],
        "title": [
            "{comp} 는 변경 전에 {file} 을 확인",
            "{comp} 에서 {err} 가 나는 이유",
            "수동 재시도보다 {func} 가 안전",
            "{comp} 는 실데이터로 테스트",
            "{comp} 설정은 한곳에 모은다",
            "수정 전에 {err} 재현",
        ],
        "lsummary": [
            "{comp} 작업 시 먼저 {file} 을 읽는다. {func} 로 대부분 충분하고, 다른 라이브러리를 추가하자 {err} 가 났다.",
            "{comp} 의 {err} 는 확인하지 않은 가정 때문이었다. 실패하는 테스트를 쓰자 2턴 만에 원인이 보였다.",
            "{comp} 는 CI 와 로컬에서 동작이 다르다. 버전을 고정하고 시작 시 실제 설정을 로그로 남긴다.",
        ],
        "context": [
            "{comp} 수정 중 (턴 {num})",
            "{file} 리뷰",
            "{err} 발생 후 질문",
            "{comp} 마이그레이션 중",
        ],
        "qa_q": [
            "{comp} 가 {err} 로 실패하는 이유는?",
            "{func} 는 async 여야 하나?",
            "{comp} 설정은 어디?",
        ],
        "qa_a": [
            "{func} 전에 {comp} 가 설정을 읽기 때문.",
            "네, 네트워크 호출을 기다리므로.",
            "{file} 에서 시작 시 읽는다.",
        ],
    },
}
KEEP_CATS = ["approach", "tool_use", "communication", "architecture"]
PROB_CATS = ["error", "inefficiency", "misunderstanding", "oversight", "wrong_approach"]
LEVELS = ["high", "medium", "low"]
SCOPES = ["immediate", "session", "project", "global"]
USER_TYPES = [
    "user_question_answer",
    "user_insight_feedback",
    "user_concept_exploration",
    "user_fact_question",
]
AI_TYPES = ["ai_trial_error", "ai_research_discovery", "ai_strategy_pivot", "ai_user_guided"]
CATEGORIES = [
    "auth-security",
    "encoding",
    "testing-strategy",
    "dependency-management",
    "unity-physics",
    "data-pipeline",
    "performance",
    "devops",
    "frontend-state",
    "database",
]
TAGS = [
    "jwt",
    "redis",
    "unity",
    "python",
    "windows",
    "cp949",
    "testing",
    "docker",
    "ci",
    "postgres",
    "react",
    "parquet",
    "duckdb",
    "timezone",
    "encoding",
    "security",
    "performance",
    "i18n",
]


def q(text: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML 1.2)."""
    return json.dumps(text, ensure_ascii=False)


class Gen:
    """Text for one work unit, from its own seeded random stream."""

    def __init__(self, seed: int, unit: int, canon: list[tuple[str, str, str, str]]) -> None:
        self.r = random.Random(seed * 1_000_003 + unit)
        self.canon = canon
        # Zipf-like with a flat head: the commonest learning recurs a few hundred times in
        # 100k lessons, most recur a handful of times.
        self.cum = list(itertools.accumulate(1.0 / (i + 20) for i in range(len(canon))))

    def ident(self) -> str:
        r = self.r
        return f"{r.choice(VERBS)}{r.choice(NOUNS)}{r.choice(NOUNS) if r.random() < 0.5 else ''}"

    def file(self) -> str:
        r = self.r
        name = self.ident()
        if r.random() < 0.4:
            name = "_".join(w.lower() for w in [r.choice(VERBS), r.choice(NOUNS)])
        return f"{r.choice(DIRS)}/{name}{r.choice(EXTS)}"

    def fill(self, template: str, domain: str, project: str) -> str:
        r = self.r
        n = r.randint(2, 40)
        return template.format(
            comp=r.choice(COMPONENTS[domain]),
            file=self.file(),
            func=self.ident() + "()",
            err=r.choice(ERRORS),
            num=n,
            num2=n + r.randint(1, 9),
            project=project,
        )

    def say(self, lang: str, field: str, domain: str, project: str) -> str:
        return self.fill(self.r.choice(TEXT[lang][field]), domain, project)

    def recurring(self) -> tuple[str, str, str, str]:
        """A canonical learning, sometimes with the drift of being written down again."""
        title, summary, lang, domain = self.r.choices(self.canon, cum_weights=self.cum)[0]
        x = self.r.random()
        if x < 0.15:
            title = title.rstrip("。.") + ("。" if lang == "ja" else ".")
        elif x < 0.25:
            title = title.replace(" ", "  ", 1)
        elif x < 0.32:
            title = title[:1].lower() + title[1:]
        return title, summary, lang, domain


def canonical(seed: int, count: int) -> list[tuple[str, str, str, str]]:
    g = Gen(seed, 999_999, [])
    out = []
    for i in range(count):
        slug, _path, lang, domain = PROJECTS[i % len(PROJECTS)]
        if g.r.random() < 0.3:
            lang = g.r.choice(["en", "ja", "ko"])
        out.append(
            (
                g.say(lang, "title", domain, slug),
                g.say(lang, "lsummary", domain, slug),
                lang,
                domain,
            )
        )
    return out


# -- sessions -----------------------------------------------------------------------------


def session_day(i: int, n: int) -> tuple[date, int]:
    """The day of session ``i`` of ``n`` and its 1-based number within that day."""
    d = i * SPAN_DAYS // max(n, 1)
    first = -(-d * max(n, 1) // SPAN_DAYS)
    return START + timedelta(days=d), i - first + 1


def session_of(seed: int, i: int, n: int) -> dict[str, object]:
    r = random.Random(seed * 7919 + i)
    day, seq = session_day(i, n)
    slug, path, lang, domain = PROJECTS[r.randrange(len(PROJECTS))]
    t = datetime(day.year, day.month, day.day, r.randint(8, 23), r.randint(0, 59), r.randint(0, 59))
    bits = [r.getrandbits(k) for k in (32, 16, 12, 16, 48)]
    sid = f"{bits[0]:08x}-{bits[1]:04x}-4{bits[2]:03x}-{bits[3]:04x}-{bits[4]:012x}"
    return {
        "i": i,
        "day": day,
        "seq": seq,
        "slug": slug,
        "path": path,
        "lang": lang,
        "domain": domain,
        "time": t,
        "sid": sid,
    }


def mixed_lang(g: Gen, lang: str) -> str:
    """Sessions switch language now and then (a Korean user reading Japanese docs...)."""
    return g.r.choice(["en", "ja", "ko"]) if g.r.random() < 0.15 else lang


def kpt_report(g: Gen, s: dict[str, object], ledger: list[str]) -> tuple[str, str]:
    r = g.r
    lang, domain, slug = str(s["lang"]), str(s["domain"]), str(s["slug"])
    day = s["day"]
    assert isinstance(day, date)
    rid = f"kpt-{day:%Y%m%d}-{s['seq']:03d}"
    t = s["time"]
    assert isinstance(t, datetime)
    outcome = r.choices(["success", "partial", "failure"], [6, 3, 1])[0]
    if r.random() < 0.03:
        outcome = outcome.capitalize()
    out = []
    if r.random() < 0.1:
        out.append(f"# {g.say(lang, 'context', domain, slug)}")
    out += [
        f"id: {rid}",
        f'created_at: "{t.isoformat()}+09:00"',
        f"session_id: {s['sid']}",
        f"session_summary: {q(g.say(lang, 'summary', domain, slug))}",
        "task_goals:",
        *(
            f"  - {q(g.say(mixed_lang(g, lang), 'goal', domain, slug))}"
            for _ in range(r.randint(1, 3))
        ),
        f"outcome: {outcome}",
        "",
    ]
    keys: list[str] = []

    def text(field: str) -> str:
        if field in ("problem", "try") and r.random() < 0.15:
            title = g.recurring()[0]
            return title
        return g.say(mixed_lang(g, lang), field, domain, slug)

    out.append("keep:")
    for k in range(r.randint(2, 5)):
        iid = f"keep-{k + 1:03d}"
        keys.append(iid)
        desc = text("keep")
        if r.random() < 0.01:
            out.append(f"  - id: {iid}\n    description: Note: {desc}")
        else:
            out.append(f"  - id: {iid}\n    description: {q(desc)}")
        if r.random() > 0.02:
            out.append(f"    evidence: {q(g.say(lang, 'evidence', domain, slug))}")
        cat = r.choice(KEEP_CATS) if r.random() > 0.01 else "performance"
        out.append(f"    category: {cat}\n    reusability: {r.choice(LEVELS)}")
    out.append("\nproblem:")
    probs = []
    for k in range(r.randint(1, 4)):
        iid = f"prob-{k + 1:03d}"
        probs.append(iid)
        keys.append(iid)
        out.append(
            f"  - id: {iid}\n    description: {q(text('problem'))}\n"
            f"    impact: {r.choice(LEVELS)}\n"
            f"    evidence: {q(g.say(lang, 'evidence', domain, slug))}\n"
            f"    category: {r.choice(PROB_CATS)}"
        )
        if r.random() < 0.7:
            out.append(f"    root_cause: {q(g.say(lang, 'root', domain, slug))}")
        if r.random() < 0.5:
            a = r.randint(1, 30)
            out.append(f'    turn_range: "{a}-{a + r.randint(1, 6)}"')
    omits = [f"omit-{k + 1:03d}" for k in range(r.choices([0, 1, 2], [5, 4, 1])[0])]
    out.append("\ntry:")
    for k in range(r.randint(1, 4)):
        iid = f"try-{k + 1:03d}"
        keys.append(iid)
        addr = ", ".join(
            f'"{a}"' for a in r.sample(probs + omits, min(len(probs + omits), r.randint(1, 2)))
        )
        out.append(
            f"  - id: {iid}\n    description: {q(text('try'))}\n    addresses: [{addr}]\n"
            f"    scope: {r.choice(SCOPES)}"
        )
        if r.random() < 0.6:
            ttype = r.choice(["claude_md", "skill", "memory", "hook"])
            target = {
                "claude_md": ("CLAUDE.md", "## 作業ルール" if lang == "ja" else "## Rules"),
                "skill": (
                    f"knowledge_base/global/skills/skill_{r.randrange(60):03d}.yaml",
                    "### Notes",
                ),
                "memory": (f"memory/{slug}/project_memory.yaml", "learned"),
                "hook": ("hooks/pre-commit-notes.md", "## Checks"),
            }[ttype]
            out.append(
                f"    persistence_target:\n      type: {ttype}\n      path: {target[0]}\n"
                f"      section: {q(target[1])}"
            )
    if omits:
        out.append("\nomission:")
        for iid in omits:
            keys.append(iid)
            out.append(
                f"  - id: {iid}\n    description: {q(g.say(lang, 'omission', domain, slug))}\n"
                f"    reasoning: {q(g.say(lang, 'reasoning', domain, slug))}\n"
                f"    risk_level: {r.choice(LEVELS)}\n"
                f"    counterfactual_prompt: {q(g.say(lang, 'counterfactual', domain, slug))}"
            )
    else:
        out.append("\nomission: []")
    turns = r.randint(8, 80)
    out.append(
        f"\nmetrics:\n  session_duration_turns: {turns}\n  user_turns: {turns // 3}\n"
        f"  assistant_turns: {turns - turns // 3}\n  tool_use_count: {r.randint(5, 150)}\n"
        f"  unique_tools: [{', '.join(r.sample(TOOLS, r.randint(2, 6)))}]\n"
        f"  error_count: {r.randint(0, 6)}\n  correction_count: {r.randint(0, 4)}\n"
    )
    if r.random() < 0.3:  # a morning's review: some items decided
        for iid in r.sample(keys, r.randint(1, len(keys))):
            op = "approve" if r.random() < 0.8 else "reject"
            tx, target = f"{r.getrandbits(48):012x}", f"{rid}/{iid}"
            ledger.append(
                json.dumps(
                    {
                        "id": tx,
                        "at": f"{t.isoformat()}+09:00",
                        "op": "commit",
                        "target": target,
                        "tx": tx,
                        "action": op,
                        "subjects": [target],
                        "effects": [{"op": op, "target": target}],
                    },
                    ensure_ascii=False,
                )
            )
    return f"{rid}.yaml", "\n".join(out)


def feedback(g: Gen, s: dict[str, object], rid: str) -> tuple[str, str]:
    r = g.r
    lang, domain, slug = str(s["lang"]), str(s["domain"]), str(s["slug"])
    fid = rid.replace("kpt-", "fb-")
    t = s["time"]
    assert isinstance(t, datetime)
    text = (
        f'id: {fid}\ncreated_at: "{t.isoformat()}+09:00"\n'
        f"task_summary: {q(g.say(lang, 'summary', domain, slug))}\nsession_id: {s['sid']}\n"
        f"outcome:\n  success: {str(r.random() < 0.6).lower()}\n  score: {r.random():.2f}\n"
        f"  rationale: {q(g.say(lang, 'root', domain, slug))}\nissues:\n"
        f"  - issue_id: issue-001\n    type: skill_incomplete\n"
        f"    description: {q(g.say(lang, 'problem', domain, slug))}\n"
        f"    target:\n      type: skill\n      path: knowledge_base/global/skills/skill_{r.randrange(60):03d}.yaml\n"
        f"    severity: {r.choice(['critical', 'high', 'medium', 'low'])}\n"
        f"source: self\n"
    )
    return f"{fid}.yaml", text


def summary_line(g: Gen, s: dict[str, object], n: int) -> str:
    r = g.r
    lang, domain, slug = str(s["lang"]), str(s["domain"]), str(s["slug"])
    day = s["day"]
    t = s["time"]
    assert isinstance(day, date) and isinstance(t, datetime)
    rec: dict[str, object] = {
        "id": f"ws-{day:%Y%m%d}-{s['seq']:03d}",
        "date": t.isoformat(),
        "session_id": s["sid"],
        "session_name": g.say(lang, "goal", domain, slug),
        "project": s["path"],
        "info_summary": [
            g.say(mixed_lang(g, lang), "lsummary", domain, slug) for _ in range(r.randint(2, 4))
        ],
        "qa_pairs": [
            {"q": g.say(lang, "qa_q", domain, slug), "a": g.say(lang, "qa_a", domain, slug)}
            for _ in range(r.randint(0, 2))
        ],
        "conclusions": [
            {
                "topic": g.say(lang, "goal", domain, slug),
                "decision": g.say(lang, "try", domain, slug),
                "rationale": g.say(lang, "root", domain, slug),
            }
        ],
        "action_items": [
            {
                "title": g.say(lang, "try", domain, slug),
                "priority": r.choice(LEVELS),
                "registered_todo": None,
            }
        ],
    }
    if r.random() < 0.7:
        rec["work_done"] = [g.say(lang, "keep", domain, slug) for _ in range(r.randint(1, 3))]
    if r.random() < 0.5:
        rec["evaluation"] = {
            "ai": {
                "sub_scores": {
                    k: {"score": r.randint(2, 5), "reason": g.say(lang, "reasoning", domain, slug)}
                    for k in ("goal_achievement", "technical_quality")
                }
            },
            "user": {
                "score": r.randint(2, 5),
                "good_points": [],
                "bad_points": [],
                "improvements": [],
            },
        }
    return json.dumps(rec, ensure_ascii=False)


def lesson_line(g: Gen, s: dict[str, object], who: str, n: int) -> str:
    r = g.r
    lang, domain, slug = mixed_lang(g, str(s["lang"])), str(s["domain"]), str(s["slug"])
    day = s["day"]
    t = s["time"]
    assert isinstance(day, date) and isinstance(t, datetime)
    if r.random() < 0.25:
        title, summary, _lang, _domain = g.recurring()
    else:
        title, summary = g.say(lang, "title", domain, slug), g.say(lang, "lsummary", domain, slug)
    id_day = day if r.random() > 0.01 else day - timedelta(days=r.randint(1, 40))  # the wrap-up bug
    rec: dict[str, object] = {
        "id": f"ll-{who}-{id_day:%Y%m%d}-{(int(str(s['seq'])) - 1) * 50 + n:03d}",
        "date": t.isoformat(),
        "session_id": s["sid"],
        "session_name": g.say(str(s["lang"]), "goal", domain, slug),
        "project": s["path"],
        "type": r.choice(USER_TYPES if who == "user" else AI_TYPES),
        "category": r.choice(CATEGORIES),
        "title": title,
        "summary": summary,
        "context": g.say(lang, "context", domain, slug),
        "detail_ref": "" if r.random() < 0.8 else f"hurikaeri/kpt-{day:%Y%m%d}-{s['seq']:03d}.yaml",
        "tags": r.sample(TAGS, r.randint(1, 4)),
    }
    if r.random() < 0.0005:
        return json.dumps(rec, ensure_ascii=False, indent=2)  # the pretty-printing bug
    return json.dumps(rec, ensure_ascii=False)


def make_unit(
    seed: int,
    unit: int,
    lo: int,
    hi: int,
    n: int,
    reports: int,
    lessons: int,
    canon: list[tuple[str, str, str, str]],
) -> dict[str, object]:
    g = Gen(seed, unit, canon)
    files: list[tuple[str, str]] = []
    ledger: list[str] = []
    summaries: dict[str, list[str]] = {}
    user: list[str] = []
    ai: list[str] = []
    for i in range(lo, hi):
        s = session_of(seed, i, n)
        if i * reports // n != (i + 1) * reports // n:  # this session wrote a KPT report
            name, text = kpt_report(g, s, ledger)
            files.append((f"hurikaeri/{name}", text))
            if g.r.random() < 0.1:
                fname, ftext = feedback(g, s, name[:-5])
                files.append((f"feedback/{fname}", ftext))
        summaries.setdefault(str(s["slug"]), []).append(summary_line(g, s, i))
        count = (i + 1) * lessons // n - i * lessons // n
        for k in range(count):
            who = "user" if g.r.random() < 0.4 else "ai"
            (user if who == "user" else ai).append(lesson_line(g, s, who, k + 1))
    return {"files": files, "ledger": ledger, "summaries": summaries, "user": user, "ai": ai}


def _unit(
    args: tuple[int, int, int, int, int, int, int, list[tuple[str, str, str, str]]],
) -> dict[str, object]:
    return make_unit(*args)


# -- knowledge base, memory, inbox, discussions, pieces ---------------------------------------


def knowledge(seed: int, out: Path, reports: int, canon: list[tuple[str, str, str, str]]) -> None:
    g = Gen(seed, 888_888, canon)
    r = g.r
    kb = out / "knowledge_base"
    skills = max(20, reports // 150)
    for k in range(skills):
        slug, _path, lang, domain = PROJECTS[k % len(PROJECTS)]
        comp = COMPONENTS[domain][k % len(COMPONENTS[domain])]
        body = "\n".join(f"  - {g.say(lang, 'try', domain, slug)}" for _ in range(r.randint(3, 8)))
        text = (
            f'skill_id: "skill_{k:03d}"\nname: {q(comp + " / " + g.say(lang, "title", domain, slug))}\n'
            f'version: {r.randint(1, 5)}\ncreated_at: "2025-0{r.randint(1, 9)}-1{r.randint(0, 9)}T09:00:00Z"\n'
            f'updated_at: "2026-0{r.randint(1, 9)}-1{r.randint(0, 9)}T09:00:00Z"\n'
            f"triggers:\n  keywords: [{q(comp)}, {q(domain)}, {q(r.choice(TAGS))}]\n"
            f'  file_patterns: ["{r.choice(DIRS)}/*{r.choice(EXTS)}"]\n  task_types: [code_implementation, bug_fix]\n'
            f"content: |\n  ## {comp}\n\n  ### Notes\n{body}\n"
            f"stats:\n  times_loaded: {r.randint(0, 90)}\n  success_rate: {r.random():.2f}\n"
        )
        _write(kb / "global" / "skills" / f"skill_{k:03d}.yaml", text)
    for kind, count in (
        ("patterns", max(15, reports // 300)),
        ("anti_patterns", max(15, reports // 300)),
    ):
        for k in range(count):
            slug, _path, lang, domain = PROJECTS[(k * 3) % len(PROJECTS)]
            pid = f"{kind[:-1]}_{k:03d}"
            if kind == "patterns":
                body = f"type: success\ncontext: {q(g.say(lang, 'context', domain, slug))}\nsolution: |\n  {g.say(lang, 'try', domain, slug)}\n"
            else:
                body = (
                    f"type: failure\ncontext: {q(g.say(lang, 'context', domain, slug))}\n"
                    f"bad_approach: {q(g.say(lang, 'problem', domain, slug))}\n"
                    f"why_bad: {q(g.say(lang, 'root', domain, slug))}\n"
                    f"correct_approach: {q(g.say(lang, 'try', domain, slug))}\n"
                )
            text = (
                f"pattern_id: {pid}\nname: {q(g.say(lang, 'title', domain, slug))}\n{body}"
                f"evidence:\n  - project: {slug}\n    task: kpt-2025{r.randint(10, 12)}1{r.randint(0, 9)}-001\n"
                f"    result: success\ntags: [{', '.join(r.sample(TAGS, 3))}]\n"
            )
            _write(kb / "global" / kind / f"{pid}.yaml", text)
    for k in range(max(4, reports // 1000)):
        slug, _path, lang, domain = PROJECTS[k % len(PROJECTS)]
        text = (
            f"pattern_id: learned_{k:03d}\nname: {q(g.say(lang, 'title', domain, slug))}\ntype: success\n"
            f"solution: {q(g.say(lang, 'try', domain, slug))}\ntags: [{r.choice(TAGS)}]\n"
        )
        where = kb / "projects" / slug / "learned" if k % 2 else kb / "groups" / "phase2" / "code"
        _write(where / f"learned_{k:03d}.yaml", text)
    for slug, _path, lang, domain in PROJECTS:
        behaviors = "\n".join(
            f"  - trigger: {q(g.say(lang, 'context', domain, slug))}\n"
            f"    behavior: {q(g.say(lang, 'try', domain, slug))}\n"
            f"    reason: {q(g.say(lang, 'root', domain, slug))}"
            for _ in range(r.randint(2, 8))
        )
        text = (
            f'project_id: "{slug}"\nlast_updated: "2026-11-16T05:10:00Z"\npreferences:\n'
            f"  code_style:\n    - {q(g.say(lang, 'keep', domain, slug))}\n"
            f"learned_behaviors:\n{behaviors}\nknown_issues:\n"
            f"  - description: {q(g.say(lang, 'problem', domain, slug))}\n"
            f"    workaround: {q(g.say(lang, 'try', domain, slug))}\n"
        )
        _write(out / "memory" / slug / "project_memory.yaml", text)
    n = max(5, reports // 40)
    for k in range(n):
        slug, _path, lang, domain = PROJECTS[k % len(PROJECTS)]
        day = START + timedelta(days=k * SPAN_DAYS // n)
        pid = f"prop-{day:%Y%m%d}-{k % 900 + 1:03d}"
        status = r.choices(["pending", "approved", "rejected"], [5, 3, 1])[0]
        kind = r.choice(["skill", "pattern", "anti_pattern", "memory"])
        text = (
            f'id: {pid}\ncreated_at: "{day.isoformat()}T07:26:10Z"\nproposed_by: reflection-agent\n'
            f"kind: {kind}\ntitle: {q(g.say(lang, 'title', domain, slug))}\n"
            f"rationale: |\n  {g.say(lang, 'lsummary', domain, slug)}\n"
            f"evidence:\n  - {q(g.say(lang, 'evidence', domain, slug))}\n"
            f"target: {PROPOSAL_TARGETS[kind].format(k=k, slug=slug)}\n"
            f"payload:\n{proposal_payload(g, kind, k, lang, domain, slug)}status: {status}\n"
            f"decided_at: null\ndecision_note: null\n"
        )
        _write(kb / "inbox" / f"{pid}.yaml", text)
    for k in range(max(4, reports // 20)):
        slug, _path, lang, domain = PROJECTS[k % len(PROJECTS)]
        paras = "\n\n".join(g.say(lang, "lsummary", domain, slug) for _ in range(r.randint(2, 5)))
        block = (
            "---\nstatus: continue\nopen_questions:\n"
            f"  - {q(g.say(lang, 'qa_q', domain, slug))}\ndecisions:\n  - {q(g.say(lang, 'try', domain, slug))}\n---\n"
            if k % 3
            else "---\nstatus: stop\nverdict: conditional\nfindings:\n"
            f"  - severity: medium\n    message: {q(g.say(lang, 'problem', domain, slug))}\n"
            f"    suggestion: {q(g.say(lang, 'try', domain, slug))}\n---\n"
        )
        _write(
            out / "discussions" / f"{slug}-{k % 50:02d}" / f"round-{k:05d}.md",
            f"{paras}\n\n{block}",
        )
    for k in range(max(3, min(40, reports // 500))):
        slug, _path, lang, domain = PROJECTS[k % len(PROJECTS)]
        moves = [f"step_{m}" for m in range(r.randint(2, 6))]
        body = "\n".join(
            f"  - name: {m}\n    persona: {r.choice(['coder', 'planner', 'supervisor'])}\n"
            f"    instruction_template: |\n      {g.say(lang, 'try', domain, slug)}\n"
            f"    rules:\n      - condition: {q(g.say(lang, 'goal', domain, slug))}\n"
            f"        next: {moves[j + 1] if j + 1 < len(moves) else 'COMPLETE'}"
            for j, m in enumerate(moves)
        )
        text = (
            f"name: piece-{k:02d}\ndescription: {q(g.say(lang, 'summary', domain, slug))}\n"
            f"max_movements: {len(moves) * 2}\ninitial_movement: {moves[0]}\nmovements:\n{body}\n"
        )
        _write(out / "pieces" / "generated" / f"piece-{k:02d}.yaml", text)
    for persona in ("coder", "planner", "supervisor"):
        _write(
            out / "pieces" / "facets" / "personas" / f"{persona}.md",
            f"# {persona}\n\nYou are the {persona}.\n",
        )


PROPOSAL_TARGETS = {
    "skill": "knowledge_base/global/skills/proposed_{k:04d}.yaml",
    "pattern": "knowledge_base/global/patterns/proposed_{k:04d}.yaml",
    "anti_pattern": "knowledge_base/global/anti_patterns/proposed_{k:04d}.yaml",
    "memory": "memory/{slug}/project_memory.yaml",
}


def proposal_payload(g: Gen, kind: str, k: int, lang: str, domain: str, slug: str) -> str:
    def say(field: str) -> str:
        return q(g.say(lang, field, domain, slug))

    if kind == "memory":
        return f"  trigger: {say('context')}\n  behavior: {say('try')}\n  reason: {say('root')}\n"
    if kind == "skill":
        return f"  skill_id: proposed_{k:04d}\n  name: {say('title')}\n  content: {say('try')}\n"
    if kind == "pattern":
        return f"  pattern_id: proposed_{k:04d}\n  name: {say('title')}\n  type: success\n  solution: {say('try')}\n"
    return (
        f"  pattern_id: proposed_{k:04d}\n  name: {say('title')}\n  type: failure\n"
        f"  bad_approach: {say('problem')}\n  correct_approach: {say('try')}\n"
    )


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + ("" if text.endswith("\n") else "\n"), encoding="utf-8")


# -- driver ---------------------------------------------------------------------------------


def generate(
    out: Path,
    reports: int,
    lessons: int,
    seed: int = 1,
    workers: int | None = None,
    log: Callable[[str], None] | None = None,
) -> dict[str, int]:
    """Write the workspace under ``out``; returns counts of what was written."""
    t0 = time.perf_counter()
    sessions = max(reports, lessons // 10, 1)
    canon = canonical(seed, max(50, sessions // 5))
    units = [
        (seed, u, lo, min(lo + CHUNK, sessions), sessions, reports, lessons, canon)
        for u, lo in enumerate(range(0, sessions, CHUNK))
    ]
    for d in ("hurikaeri", "feedback", "lessons/user", "lessons/ai", ".hurikaeri"):
        (out / d).mkdir(parents=True, exist_ok=True)
    counts = {"files": 0, "reports": 0, "lessons": 0, "summaries": 0}
    summaries: dict[str, list[str]] = {}
    nproc = workers or os.cpu_count() or 1
    with (
        open(out / "lessons/user/lessons.jsonl", "w", encoding="utf-8") as fu,
        open(out / "lessons/ai/lessons.jsonl", "w", encoding="utf-8") as fa,
        open(out / ".hurikaeri/ledger.jsonl", "w", encoding="utf-8") as fl,
    ):
        results = (
            map(_unit, units)
            if nproc == 1
            else multiprocessing.get_context("fork").Pool(nproc).imap(_unit, units, chunksize=1)
        )
        for res in results:
            for rel, text in res["files"]:  # type: ignore[attr-defined]
                _write(out / rel, text)
                counts["files"] += 1
                counts["reports"] += rel.startswith("hurikaeri/")
            for slug, lines in res["summaries"].items():  # type: ignore[attr-defined]
                summaries.setdefault(slug, []).extend(lines)
            fu.writelines(line + "\n" for line in res["user"])  # type: ignore[attr-defined]
            fa.writelines(line + "\n" for line in res["ai"])  # type: ignore[attr-defined]
            fl.writelines(line + "\n" for line in res["ledger"])  # type: ignore[attr-defined]
            counts["lessons"] += len(res["user"]) + len(res["ai"])  # type: ignore[arg-type]
    for slug, lines in summaries.items():
        _write(out / "session-summaries" / slug / "summaries.jsonl", "\n".join(lines))
        counts["summaries"] += len(lines)
    knowledge(seed, out, reports, canon)
    (out / "CLAUDE.md").write_text("# Project rules\n\n## Rules\n- Read before writing.\n")
    if log:
        log(f"generated {counts} in {time.perf_counter() - t0:.1f}s under {out}")
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.generate", description=__doc__.split("\n")[0]
    )
    p.add_argument("out", type=Path, help="directory to create the workspace in")
    p.add_argument("--reports", type=int, default=1000, help="KPT reports (default 1000)")
    p.add_argument("--lessons", type=int, default=10000, help="lesson lines (default 10000)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=None, help="processes (default: all CPUs)")
    a = p.parse_args(argv)
    if a.out.exists() and any(a.out.iterdir()):
        print(f"{a.out}: not empty; choose a new directory", file=sys.stderr)
        return 2
    generate(a.out, a.reports, a.lessons, a.seed, a.workers, log=print)
    return 0


if __name__ == "__main__":
    sys.exit(main())
