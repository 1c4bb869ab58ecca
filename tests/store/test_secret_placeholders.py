"""A password that only stands for one is not a secret (issue 39): documentation's
connection strings (``postgres://postgres:postgres@db``) in a real skill, see
tests/fixtures/ecc-home/SOURCE.md; a real-looking password in the same place still is."""

from __future__ import annotations

import pytest

from store.check.secrets import scan_text
from tests.conftest import FIXTURES

SKILL = FIXTURES / "ecc-home/skills/docker-patterns/SKILL.md"


def test_a_skills_example_connection_strings_are_not_secrets() -> None:
    text = SKILL.read_text(encoding="utf-8")
    assert "postgres://postgres:postgres@db:5432/app_dev" in text
    assert scan_text(text, "SKILL.md") == []
    leaked = text.replace("postgres:postgres@db", "postgres:Xk93jfQ2mZpW@db")
    assert [(h.label, h.line) for h in scan_text(leaked, "SKILL.md")] == [
        ("generic-credential-uri", 36),
        ("generic-credential-uri", 159),
    ]


@pytest.mark.parametrize(
    "uri",
    [
        "DATABASE_URL=postgres://user:pass@host:5432/db",
        "DATABASE_URL=postgresql://user:password@localhost:5432/dbname",
        "mysql://root:secret@127.0.0.1/db",
        "redis://:changeme@localhost:6379",
        "mongodb://root:example@mongo:27017",
    ],
)
def test_placeholder_passwords_of_other_stores(uri: str) -> None:
    assert scan_text(uri) == []


@pytest.mark.parametrize(
    "uri",
    [
        "mysql://root:root@prod-db.acme-corp.com:3306/billing",
        "postgres://admin:admin@10.20.30.40/payroll",
    ],
)
def test_a_placeholder_word_for_a_real_hosts_password_is_still_a_secret(uri: str) -> None:
    assert [h.label for h in scan_text(uri)] == ["generic-credential-uri"]
