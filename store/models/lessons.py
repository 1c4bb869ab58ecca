"""Session summaries, lessons and the wrap-up input (seed 001 and wrap-up v1.4): lesson types
are the union over versions; never derive a date from an id."""

from __future__ import annotations

from typing import Annotated

from store.models.base import Choice, DateText, IdPattern, Record, Required

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

SUMMARY_ID = IdPattern(r"ws-\d{8}-\d{3,}", "ws-20260223-001")
LESSON_ID = IdPattern(r"ll-(user|ai)-\d{8}-\d{3,}", "ll-user-20260223-001")


class QaPair(Record):
    q: str | None = None
    a: str | None = None


class Conclusion(Record):
    topic: str | None = None
    decision: str | None = None
    rationale: str | None = None


class ActionItem(Record):
    title: str | None = None
    priority: Annotated[str | None, Choice(*PRIORITIES)] = None
    registered_todo: str | None = None


class SubScore(Record):
    score: int | None = None
    reason: str | None = None


class AiImprovement(Record):
    tag: str | None = None
    text: str | None = None


class AiEvaluation(Record):
    sub_scores: dict[str, SubScore] | None = None
    improvements: list[AiImprovement] | None = None


class UserEvaluation(Record):
    score: int | None = None
    good_points: list[str] | None = None
    bad_points: list[str] | None = None
    improvements: list[str] | None = None


class Evaluation(Record):
    ai: AiEvaluation | None = None
    user: UserEvaluation | None = None


class SessionSummary(Record):
    id: Annotated[str | None, Required("ws-YYYYMMDD-NNN"), SUMMARY_ID] = None
    date: Annotated[str | None, Required("an ISO 8601 time"), DateText()] = None
    session_id: str | None = None
    session_name: str | None = None
    project: str | None = None
    info_summary: list[str] | None = None
    qa_pairs: list[QaPair] | None = None
    conclusions: list[Conclusion] | None = None
    work_done: list[str] | None = None
    action_items: list[ActionItem] | None = None
    evaluation: Evaluation | None = None


class WrapupSummary(Record):
    info: list[str] | None = None
    qa: list[QaPair] | None = None
    conclusions: list[Conclusion] | None = None
    done: list[str] | None = None
    actions: list[ActionItem] | None = None


class WrapupLesson(Record):
    """A lesson as the wrap-up input carries it (no id or date yet)."""

    type: Annotated[str | None, Required(), Choice(*LESSON_TYPES)] = None
    category: str | None = None
    title: Annotated[str | None, Required("a short title")] = None
    summary: str | None = None
    context: str | None = None
    detail_ref: str | None = None
    tags: list[str] | None = None
    memory_ref: str | None = None


class Lesson(WrapupLesson):
    """A saved lesson line (user or AI)."""

    id: Annotated[str | None, Required("ll-user-YYYYMMDD-NNN or ll-ai-YYYYMMDD-NNN"), LESSON_ID] = (
        None
    )
    date: Annotated[str | None, Required("an ISO 8601 time"), DateText()] = None
    session_id: str | None = None
    session_name: str | None = None
    project: str | None = None

    def shown_title(self) -> str | None:
        """The title, else the summary, else the text of a field another tool keeps a lesson in."""
        if self.title or self.summary:
            return self.title or self.summary
        extra = self.model_extra or {}
        return next(
            (v for k in TEXT_FIELDS if isinstance(v := extra.get(k), str) and v.strip()), None
        )


#: Fields that lessons files of other tools keep a lesson's text in, in the order they are
#: looked at for a title (public files: ``lesson``, ``text``, ``insight``, ``reusable_lesson``).
TEXT_FIELDS = ("lesson", "text", "insight", "reusable_lesson", "content", "description", "message")


class WrapupInput(Record):
    """The JSON that the ``/wrapup`` skill hands to ``save-wrapup.py``."""

    session_id: str | None = None
    session_name: str | None = None
    project: Annotated[str | None, Required("the project path")] = None
    date: Annotated[str | None, Required("an ISO 8601 time"), DateText()] = None
    summary: WrapupSummary | None = None
    user_lessons: list[WrapupLesson] | None = None
    ai_lessons: list[WrapupLesson] | None = None
    evaluation: Evaluation | None = None
