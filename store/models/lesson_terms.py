"""The words of seed 001's formats that the lesson models enumerate (their priorities,
lesson types and sub-scores) and the shapes of their ids: apart from the models, so that
what reads them without pydantic (a plain wrap-up input, :mod:`store.models.shape`) shares
them."""

from __future__ import annotations

from store.models.markers import IdPattern

PRIORITIES = ("high", "medium", "low")
USER_LESSON_TYPES = (
    "user_question_answer",
    "user_insight_feedback",
    "user_concept_exploration",
    "user_fact_question",
    "user_concept_question",
    "user_perspective_shift",
)
AI_LESSON_TYPES = ("ai_trial_error", "ai_research_discovery", "ai_strategy_pivot", "ai_user_guided")
LESSON_TYPES = USER_LESSON_TYPES + AI_LESSON_TYPES
SUB_SCORES = (
    "goal_achievement",
    "communication_efficiency",
    "technical_quality",
    "session_flow",
    "learning_value",
)

SUMMARY_ID = IdPattern(r"ws-\d{8}-\d{3,}", "ws-20260223-001")
LESSON_ID = IdPattern(r"ll-(user|ai)-\d{8}-\d{3,}", "ll-user-20260223-001")
