"""A KPT report whose items partly lack ids (issue 14, point 8), shared by the store, CLI
and screen tests."""

RID = "kpt-20260301-001"
ID_LESS_REPORT = f"""\
id: {RID}
created_at: 2026-03-01T10:00:00Z
session_summary: "ids missing"
outcome: success
keep:
  - id: keep-001
    description: "has an id"
    evidence: "turn 1"
    category: approach
  - description: "first without an id"
    evidence: "turn 2"
    category: approach
  - description: "second without an id"
    evidence: "turn 3"
    category: approach
try:
  - description: "a try without an id"
    addresses: []
    scope: session
"""
