"""The text a promotion starts from: the rule, not the agent's instruction about a file (#41).

The phrasings are try-item descriptions from the demo's reports, the seeds (000's example
report), the KPT skill that writes these reports (sizukutamago/dev-tools-plugin,
skills/hurikaeri: "CLAUDE.md / SKILL.md への改善追記"), and the instruction shapes agents use
("…に「X」を追記する", "…에 X 를 추가한다", "Add X to the README", "Remember to X")."""

from __future__ import annotations

import pytest

from store.review.rule_text import rule_text

JA = [
    # instructions about a file: the rule they carry
    (
        "CLAUDE.md のセキュリティ規約に「リフレッシュトークンは不透明トークンで DB 管理」を追記する",
        "リフレッシュトークンは不透明トークンで DB 管理",
    ),
    (
        "CLAUDE.md に「コミット前に pnpm lint を実行する」と追記する",
        "コミット前に pnpm lint を実行する",
    ),
    (
        "「5 段階以上の入力はテキスト入力で受ける」をスキルに追加する",
        "5 段階以上の入力はテキスト入力で受ける",
    ),
    (
        "グローバルルールに『破壊的な git コマンドは実行前に確認する』を追加",
        "破壊的な git コマンドは実行前に確認する",
    ),
    (
        "プロジェクトの CLAUDE.md に、テストは pnpm test と pnpm test:e2e の両方を実行することを追記する",
        "テストは pnpm test と pnpm test:e2e の両方を実行すること",
    ),
    ("SKILL.md のレート制限セクションに 429 応答の形式を追記する", "429 応答の形式"),
    ("jwt_auth_middleware スキルに kid 付き発行の手順を追加する", "kid 付き発行の手順"),
    # already rules: as written
    ("新パッケージ追加前にpackage.jsonの既存依存を確認する", None),
    ("datetime.now() は必ず datetime.now(UTC) を使い、ruff DTZ で強制する", None),
    (
        "JSONL に書く関数は json.dumps(obj, ensure_ascii=False, separators=(',', ':')) に固定し、"
        "indent 引数を禁止する",
        None,
    ),
    ("認証系のステータスコードは src/errors.ts のファクトリ関数を必ず経由する", None),
    ("タイムゾーン関連の try は Polars / Python / SQL の 3 層すべてに適用したか確認する", None),
]

KO = [
    (
        "jwt_auth_middleware 스킬에 kid 포함 발급 + JWKS 로테이션 절차를 추가한다",
        "kid 포함 발급 + JWKS 로테이션 절차",
    ),
    ("429 응답 형식을 SKILL.md 레이트 제한 섹션의 예시로 추가", "429 응답 형식"),
    (
        'CLAUDE.md 에 "Windows 스크립트는 stdout 을 UTF-8 로 재설정한다" 를 추가한다',
        "Windows 스크립트는 stdout 을 UTF-8 로 재설정한다",
    ),
    (
        '프로젝트 메모리에 "Redis 통합 테스트는 testcontainers 로 띄운다" 라고 기록한다',
        "Redis 통합 테스트는 testcontainers 로 띄운다",
    ),
    (
        "CLAUDE.md 테스트 섹션에 「PlayMode 테스트는 SetUp 에서 카메라를 직접 생성한다」를 추가",
        "PlayMode 테스트는 SetUp 에서 카메라를 직접 생성한다",
    ),
    ("README 에 uv sync --locked 로 설치하는 방법을 추가한다", "uv sync --locked 로 설치하는 방법"),
    # already rules: as written
    ("센서는 기본 mode='reschedule' + pool='sensors' 로 작성한다", None),
    (
        "Windows에서 실행되는 Python 스크립트는 시작부에 sys.stdout.reconfigure(encoding='utf-8')를 넣는다",
        None,
    ),
    (
        "인코딩 버그는 '입력 → 메모리 → 파일 → 콘솔' 단계별로 바이트를 덤프해서 위치를 먼저 좁힌다",
        None,
    ),
    ("성능/정체 문제는 설정값 변경 제안 전에 원인 지표부터 보여준다", None),
    ("Redis 카운터/버킷은 처음부터 Lua 스크립트(EVALSHA)로 원자적으로 갱신한다", None),
    ("Input System 마이그레이션 예시(액션 맵, 래퍼 확장, 리바인딩 저장)를 스킬로 정리한다", None),
]

EN = [
    (
        "Add a pre-commit note to scan __snapshots__/ for email patterns",
        "Scan __snapshots__/ for email patterns",
    ),
    (
        'Add "Never run migrations against prod from a laptop" to CLAUDE.md',
        "Never run migrations against prod from a laptop",
    ),
    (
        "Add a rule to the README: always run `make check` before pushing",
        "Always run `make check` before pushing",
    ),
    (
        "Remember to run `pnpm test:e2e` before reporting completion",
        "Run `pnpm test:e2e` before reporting completion",
    ),
    (
        "Document in CLAUDE.md that incremental models filter on ingestion time",
        "Incremental models filter on ingestion time",
    ),
    (
        "Write 'Use Newtonsoft for save data' into the project memory",
        "Use Newtonsoft for save data",
    ),
    (
        "Update the testing section of CLAUDE.md to say fixtures must set AWS_DEFAULT_REGION",
        "Fixtures must set AWS_DEFAULT_REGION",
    ),
    (
        "Make sure to grep package.json before any `pnpm add`",
        "Grep package.json before any `pnpm add`",
    ),
    ("Record the worker's tmpfs size in the project notes", "The worker's tmpfs size"),
    (
        "Add to the project notes: /tmp on the worker is a 1 GB tmpfs, so DuckDB's "
        "temp_directory goes under /data",
        "/tmp on the worker is a 1 GB tmpfs, so DuckDB's temp_directory goes under /data",
    ),
    # already rules: as written
    ("Run both `pnpm test` and `pnpm test:e2e` before reporting completion in harbor-api", None),
    (
        "Add a PreToolUse hook that blocks `pnpm add` until package.json has been read in the session",
        None,
    ),
    ("Check Packages/manifest.json before suggesting any Unity package", None),
    ("Write a DuckDB skill: memory_limit, temp_directory on real disk, hive_partitioning", None),
]


@pytest.mark.parametrize(("description", "rule"), [*JA, *KO, *EN])
def test_prefill_is_the_rule(description: str, rule: str | None) -> None:
    assert rule_text(description) == (rule if rule is not None else description)


def test_ten_phrasings_a_language() -> None:
    assert min(len(JA), len(KO), len(EN)) >= 10


def test_newlines_fold_and_empty_stays_empty() -> None:
    assert rule_text("Check the lockfile\n  before adding") == "Check the lockfile before adding"
    assert rule_text("  ") == ""


#: Found by review: the quoted text beside a verb of adding was taken whatever the sentence
#: said of it, so "do not add X" promoted X — the opposite of the item — into CLAUDE.md.
NEGATED = [
    'Do not add "always skip the tests" to CLAUDE.md; it caused the outage.',
    "CLAUDE.md に「テストは省略してよい」と追記しない。",
    '스킬에 "테스트를 건너뛴다"를 추가하지 않는다',
    "README に「本番DBへ直接接続する」を追記したのが原因だったので削除する",
    'We should never note "force push to main is fine"',
    "Remove 'retry forever on 429' from the rate-limit skill",
    "CLAUDE.md の「コミット前の lint は任意」を削除する",
    "SKILL.md 에서 「캐시를 끈다」 규칙을 제거한다",
]


@pytest.mark.parametrize("description", NEGATED)
def test_a_negated_or_taken_back_addition_is_never_turned_into_its_rule(
    description: str,
) -> None:
    assert rule_text(description) == description


def test_a_negation_inside_the_quote_is_the_rule() -> None:
    assert (
        rule_text('Add "tests must not be skipped before merging" to CLAUDE.md')
        == "tests must not be skipped before merging"
    )


def test_a_long_description_is_taken_as_written() -> None:
    """Agent text of any length: past MAX_SHAPED characters no pattern runs on it (their
    cost grows with the length: 6,000 characters took 17-27 s before)."""
    for text in ("CLAUDE.md の規約に" + "をを" * 3000, "update " + "the skill " * 1500):
        assert rule_text(text) == text.strip()
