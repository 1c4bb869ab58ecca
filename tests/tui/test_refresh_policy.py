"""The app's refresh policy (tui.refresh) and router (tui.navigate): only the screens on show
that show what changed are told, the others are marked stale and told when shown again;
screens ask for each other with Open, and "next to review" has one answer."""

from __future__ import annotations

from pathlib import Path

from textual.message import Message
from textual.screen import ModalScreen, Screen

from screens.dialogs.confirm import ConfirmScreen
from screens.lessons import LessonsScreen
from screens.messages import FilesWritten, NextToReview, Open, ReviewChanged, WorkspaceChanged
from screens.session import SessionScreen
from screens.sessions import SessionsScreen
from screens.stats import StatsScreen
from store.index.order import next_to_review, next_unreviewed, ordered
from store.read.kinds import Kind
from tests.tui.helpers import make_app, ready, until
from tui.refresh import Change, concerns, on_show

REPORT = "hurikaeri/kpt-20261120-001.yaml"


def test_changes_gather_while_hidden() -> None:
    a, b = Path("a"), Path("b")
    first = Change(frozenset({a}), frozenset({b}), frozenset({Kind.KPT}))
    later = Change(frozenset({b}), frozenset({a}), frozenset({Kind.LESSONS}), review=True)
    both = first.then(later)
    assert both == Change(
        frozenset({b}), frozenset({a}), frozenset({Kind.KPT, Kind.LESSONS}), review=True
    )
    assert isinstance(both.message(), WorkspaceChanged)
    assert isinstance(Change(review=True).message(), ReviewChanged)
    assert Change().message() is None


def test_a_screen_is_told_what_it_shows() -> None:
    kpt = Change(frozenset({Path("k")}), kinds=frozenset({Kind.KPT}))
    review = Change(review=True)
    lessons = LessonsScreen.__new__(LessonsScreen)
    sessions = SessionsScreen.__new__(SessionsScreen)
    stats = StatsScreen.__new__(StatsScreen)
    assert not concerns(lessons, kpt) and concerns(lessons, review)
    assert concerns(sessions, kpt) and concerns(stats, kpt)
    assert concerns(Screen(), kpt)  # a screen that declares nothing is told everything
    assert concerns(lessons, Change(initial=True))


def test_the_screens_on_show_are_the_top_one_and_those_a_modal_lets_through() -> None:
    base, middle, modal = Screen(), Screen(), ModalScreen[None]()
    assert on_show([base, middle, modal]) == [modal, middle]
    assert on_show([base, middle]) == [middle]


def _spy(screen: Screen[object]) -> list[Message]:
    """What ``screen`` is told of the workspace from now on."""
    seen: list[Message] = []
    post = screen.post_message

    def recording(message: Message) -> bool:
        if isinstance(message, (WorkspaceChanged, ReviewChanged)):
            seen.append(message)
        return post(message)

    screen.post_message = recording  # type: ignore[method-assign]
    return seen


async def test_a_hidden_screen_is_refreshed_when_shown_again(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        home = app.screen
        assert isinstance(home, SessionsScreen)
        await app.run_action("open_screen('lessons')")
        await until(pilot, lambda: isinstance(app.screen, LessonsScreen))
        lessons = app.screen
        told_home, told_lessons = _spy(home), _spy(lessons)
        path = demo_root / REPORT
        path.write_text(
            path.read_text(encoding="utf-8").replace("outcome: success", "outcome: partial"),
            encoding="utf-8",
        )
        await app.apply_changes({path})
        await pilot.pause()
        assert told_home == [] and told_lessons == []  # hidden; shows no KPT report
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is home)
        await pilot.pause()
        assert [type(m) for m in told_home] == [WorkspaceChanged]


async def test_a_decision_with_files_is_one_message(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        told = _spy(app.screen)
        path = demo_root / REPORT
        path.write_text(path.read_text(encoding="utf-8") + "# touched\n", encoding="utf-8")
        await app.on_files_written(FilesWritten(frozenset({path}), review=True))
        await pilot.pause()
        assert len(told) == 1
        message = told[0]
        assert isinstance(message, WorkspaceChanged) and message.review
        assert message.kinds == frozenset({Kind.KPT})


async def test_a_modal_on_top_lets_the_screen_below_be_told(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        home = app.screen
        await app.push_screen(ConfirmScreen("?", "Yes"))
        told = _spy(home)
        app.post_message(ReviewChanged())
        await pilot.pause()
        assert [type(m) for m in told] == [ReviewChanged]


async def test_next_to_review_has_one_answer(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        expected = next_unreviewed(app.index, ordered(app.index), None, None)
        assert expected is not None and next_to_review(app.index) == expected
        app.screen.post_message(Open(NextToReview()))
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        review = app.screen
        assert isinstance(review, SessionScreen)
        assert review.session_key == expected[0].key
        # from the review screen, the next item opens in the same screen
        after = next_to_review(app.index, review.session_key, expected[1])
        assert after is not None
        await pilot.pause()
        review.post_message(Open(NextToReview(review.session_key, expected[1])))
        await pilot.pause()
        assert app.screen is review and review.session_key == after[0].key
