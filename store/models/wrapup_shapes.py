"""The shapes of the wrap-up input's models (:mod:`store.models.shape`). Written by
``python -m store.models.shape_build`` from :class:`store.models.lessons.WrapupInput`;
do not edit (a test keeps it the models' own)."""

from __future__ import annotations

from typing import Any

WRITTEN: dict[str, Any] = {
    "WrapupInput": {
        "warn_unknown_fields": False,
        "fields": [
            ["session_id", "str", None, []],
            ["session_name", "str", None, []],
            ["project", "str", None, [["required", "the project path"]]],
            ["date", "str", None, [["required", "an ISO 8601 time"], ["date"]]],
            ["summary", "doc", "WrapupSummary", []],
            ["user_lessons", "docs", "WrapupLesson", []],
            ["ai_lessons", "docs", "WrapupLesson", []],
            ["evaluation", "doc", "Evaluation", []],
        ],
    },
    "WrapupSummary": {
        "warn_unknown_fields": False,
        "fields": [
            ["info", "strs", None, []],
            ["qa", "docs", "QaPair", []],
            ["conclusions", "docs", "Conclusion", []],
            ["done", "strs", None, []],
            ["actions", "docs", "ActionItem", []],
        ],
    },
    "WrapupLesson": {
        "warn_unknown_fields": False,
        "fields": [
            [
                "type",
                "str",
                None,
                [
                    ["required", ""],
                    [
                        "choice",
                        "user_question_answer",
                        "user_insight_feedback",
                        "user_concept_exploration",
                        "user_fact_question",
                        "user_concept_question",
                        "user_perspective_shift",
                        "ai_trial_error",
                        "ai_research_discovery",
                        "ai_strategy_pivot",
                        "ai_user_guided",
                    ],
                ],
            ],
            ["category", "str", None, []],
            ["title", "str", None, [["required", "a short title"]]],
            ["summary", "str", None, []],
            ["context", "str", None, []],
            ["detail_ref", "str", None, []],
            ["tags", "strs", None, []],
            ["memory_ref", "str", None, []],
        ],
    },
    "Evaluation": {
        "warn_unknown_fields": False,
        "fields": [["ai", "doc", "AiEvaluation", []], ["user", "doc", "UserEvaluation", []]],
    },
    "QaPair": {
        "warn_unknown_fields": False,
        "fields": [["q", "str", None, []], ["a", "str", None, []]],
    },
    "Conclusion": {
        "warn_unknown_fields": False,
        "fields": [
            ["topic", "str", None, []],
            ["decision", "str", None, []],
            ["rationale", "str", None, []],
        ],
    },
    "ActionItem": {
        "warn_unknown_fields": False,
        "fields": [
            ["title", "str", None, []],
            ["priority", "str", None, [["choice", "high", "medium", "low"]]],
            ["registered_todo", "str", None, []],
        ],
    },
    "AiEvaluation": {
        "warn_unknown_fields": False,
        "fields": [
            ["sub_scores", "doc_map", "SubScore", []],
            ["improvements", "docs", "AiImprovement", []],
        ],
    },
    "UserEvaluation": {
        "warn_unknown_fields": False,
        "fields": [
            ["score", "int", None, []],
            ["good_points", "strs", None, []],
            ["bad_points", "strs", None, []],
            ["improvements", "strs", None, []],
        ],
    },
    "SubScore": {
        "warn_unknown_fields": False,
        "fields": [["score", "int", None, []], ["reason", "str", None, []]],
    },
    "AiImprovement": {
        "warn_unknown_fields": False,
        "fields": [["tag", "str", None, []], ["text", "str", None, []]],
    },
}
