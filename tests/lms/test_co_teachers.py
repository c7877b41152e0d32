"""Co-teachers: they see and run the class owner's quizzes, decks, practice and game sessions
(``User.objects.sharing_with`` through ``content.permissions``), the owner decides who they
are, hands the class over to a teacher who accepts; everyone else still gets a 404."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from content import building
from content.models import BuildState
from content.permissions import runs_for
from games import selectors as game_selectors
from games import services as game_services
from games.models import GameSession, Participant
from games.play.znajznak.practice import practice_assignment_create
from games.quiz.models import Quiz
from lms.classes import quizzes as class_quizzes
from lms.classes import services
from lms.classes.errors import ClassError
from lms.models import Assignment, ClassMember, SchoolClass, User
from tests.factories import TeacherFactory, UserFactory
from tests.games.test_practice import small_deck
from tests.games.test_sessions import create_session
from tests.lms.factories_classes import class_with_students, knowledge_quiz, member_roles
from tests.lms.test_classes import signed_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def team(teacher: Any, other_teacher: Any) -> dict[str, Any]:
    """Teacher owns 3b; other_teacher co-teaches it; a third teacher teaches nothing with them."""
    school_class = class_with_students(teacher, UserFactory())
    services.class_member_add(school_class=school_class, user=other_teacher, role="teacher", by=teacher)
    return {"class": school_class, "owner": teacher, "co": other_teacher, "stranger": TeacherFactory()}


def test_the_sharing_rule_goes_from_the_owner_to_the_co_teachers_only(team):
    owner, co, stranger = team["owner"], team["co"], team["stranger"]
    assert set(User.objects.sharing_with(co)) == {co, owner}
    assert set(User.objects.sharing_with(owner)) == {owner}
    assert set(User.objects.sharing_with(stranger)) == {stranger}
    assert runs_for(co, owner.pk) and not runs_for(owner, co.pk) and not runs_for(stranger, owner.pk)


def test_a_student_of_the_class_shares_nothing(team):
    student = class_with_students(team["owner"], UserFactory()).members.get(role="student").user
    assert not User.objects.sharing_with(student).exists()
    assert not runs_for(student, team["owner"].pk)


# --- quizzes --------------------------------------------------------------------------------------


def test_a_co_teacher_sees_and_runs_the_owners_quiz_and_a_stranger_gets_404(team):
    quiz = knowledge_quiz(team["owner"])
    url = reverse("quiz:detail", args=[quiz.pk])
    assert signed_in(team["co"]).get(url).status_code == 200
    assert signed_in(team["stranger"]).get(url).status_code == 404
    assert quiz.title in signed_in(team["co"]).get(reverse("quiz:list")).content.decode()
    assert quiz.title not in signed_in(team["stranger"]).get(reverse("quiz:list")).content.decode()
    for which in ("worksheet", "answer-key"):
        pdf = reverse("quiz:print", args=[quiz.pk, which])
        assert signed_in(team["stranger"]).get(pdf).status_code == 404


def test_the_owner_does_not_see_the_co_teachers_own_quiz(team):
    quiz = knowledge_quiz(team["co"])
    assert signed_in(team["owner"]).get(reverse("quiz:detail", args=[quiz.pk])).status_code == 404


def test_a_co_teacher_publishes_the_owners_draft_quiz_and_a_stranger_may_not(team):
    quiz = knowledge_quiz(team["owner"])
    Quiz.objects.filter(pk=quiz.pk).update(status=Quiz.Status.DRAFT, published_at=None)
    assert signed_in(team["stranger"]).post(reverse("quiz:publish", args=[quiz.pk])).status_code == 404
    signed_in(team["co"]).post(reverse("quiz:publish", args=[quiz.pk]))
    quiz.refresh_from_db()
    assert quiz.status == Quiz.Status.PUBLISHED


def test_a_co_teacher_sets_the_owners_quiz_as_homework_but_not_a_strangers(team):
    mine, strangers = knowledge_quiz(team["owner"]), knowledge_quiz(team["stranger"])
    assert set(class_quizzes.quizzes_assignable_by(team["co"])) == {mine}
    homework = services.assignment_create(
        school_class=team["class"], by=team["co"], title="Quiz", kind=Assignment.Kind.QUIZ, quiz=mine
    )
    assert homework.quiz == mine
    with pytest.raises(ClassError) as refusal:
        services.assignment_create(
            school_class=team["class"], by=team["co"], title="Quiz", kind=Assignment.Kind.QUIZ, quiz=strangers
        )
    assert refusal.value.code == "no_quiz"


def test_sharing_ends_when_the_co_teacher_is_removed_or_the_class_archived(team):
    quiz = knowledge_quiz(team["owner"])
    url = reverse("quiz:detail", args=[quiz.pk])
    services.class_update(school_class=team["class"], by=team["owner"], archived=True)
    assert signed_in(team["co"]).get(url).status_code == 404
    services.class_update(school_class=team["class"], by=team["owner"], archived=False)
    assert signed_in(team["co"]).get(url).status_code == 200
    services.class_member_remove(school_class=team["class"], user=team["co"], by=team["owner"])
    assert signed_in(team["co"]).get(url).status_code == 404


# --- decks and practice ---------------------------------------------------------------------------


def test_a_co_teacher_plays_the_owners_deck_and_a_stranger_gets_404(team):
    deck = small_deck(team["owner"])
    assert deck in game_selectors.decks_playable_by(team["co"])
    assert deck not in game_selectors.decks_playable_by(team["stranger"])
    url = reverse("decks:deck_detail", args=[deck.pk])
    assert signed_in(team["co"]).get(url).status_code == 200
    assert signed_in(team["stranger"]).get(url).status_code == 404
    # "Try again" is running it too: the co-teacher is answered (this deck is built, so it
    # says only a failed one is tried again), the stranger is not.
    retry = reverse("decks:deck_retry", args=[deck.pk])
    assert signed_in(team["co"]).post(retry).status_code == 302
    assert signed_in(team["stranger"]).post(retry).status_code == 404


def test_a_co_teacher_tries_the_owners_failed_deck_again(team):
    deck = small_deck(team["owner"])
    type(deck).objects.filter(pk=deck.pk).update(state=BuildState.FAILED)
    deck.refresh_from_db()
    building.deck_retry(deck=deck, user=team["co"])
    deck.refresh_from_db()
    assert deck.state != BuildState.FAILED
    with pytest.raises(PermissionDenied):
        building.deck_retry(deck=deck, user=team["stranger"])


def test_a_co_teacher_sets_a_practice_duel_from_the_owners_deck_but_not_from_a_strangers(team):
    def practice(deck: Any) -> Assignment:
        return services.assignment_create(
            school_class=team["class"],
            by=team["co"],
            title="Duel",
            kind=Assignment.Kind.GAME,
            game=Assignment.Game.ZNAJZNAK_PRACTICE,
            game_options={"deck": deck.pk, "mode": "clock"},
        )

    assert practice(small_deck(team["owner"])).practice is not None
    with pytest.raises(ClassError) as refusal:
        practice(small_deck(team["stranger"]))
    assert refusal.value.code == "no_deck"


def test_a_co_teacher_reads_the_owners_practice_results(team):
    practice = practice_assignment_create(
        owner=team["owner"], title="Ćwiczenie", deck=small_deck(team["owner"])
    )
    url = reverse("games:practice_results", args=[practice.code])
    assert signed_in(team["co"]).get(url).status_code == 200
    assert signed_in(team["stranger"]).get(url).status_code == 403


# --- game sessions --------------------------------------------------------------------------------


def test_a_co_teacher_runs_the_owners_game_as_its_facilitator(team):
    session = create_session(team["owner"], seed=7)
    for player in (UserFactory(), UserFactory()):
        game_services.session_join(session=session, user=player)
    page = signed_in(team["co"]).get(reverse("games:session", args=[session.pk]))
    assert page.status_code == 200 and page.context["facilitating"]
    assert session in game_selectors.sessions_facilitated_by(team["co"])
    refused = signed_in(team["stranger"]).post(reverse("games:session_start", args=[session.pk]))
    assert refused.status_code == 403
    signed_in(team["co"]).post(reverse("games:session_start", args=[session.pk]))
    session.refresh_from_db()
    assert session.status == GameSession.Status.RUNNING
    # The co-teacher acts as the facilitator; nobody new joined the game.
    assert session.participants.filter(role=Participant.Role.FACILITATOR).count() == 1
    assert not session.participants.filter(user=team["co"]).exists()


def test_a_stranger_gets_404_on_the_owners_finished_game(team):
    session = create_session(team["owner"])
    GameSession.objects.filter(pk=session.pk).update(status=GameSession.Status.FINISHED)
    url = reverse("games:session", args=[session.pk])
    assert signed_in(team["co"]).get(url).status_code == 200
    assert signed_in(team["stranger"]).get(url).status_code == 404
    assert session not in game_selectors.sessions_facilitated_by(team["stranger"])
    assert signed_in(team["stranger"]).get(reverse("quiz:followup", args=[session.pk])).status_code == 404


# --- who adds co-teachers, leaving, handing over ---------------------------------------------------


def test_only_the_owner_adds_co_teachers(team):
    with pytest.raises(ClassError) as refusal:
        services.class_member_add(
            school_class=team["class"], user=team["stranger"], role="teacher", by=team["co"]
        )
    assert refusal.value.code == "not_allowed"
    assert not runs_for(team["stranger"], team["owner"].pk)


def test_a_co_teacher_leaves_the_class(team):
    response = signed_in(team["co"]).post(
        reverse("lms:member_remove", args=[team["class"].pk, team["co"].pk])
    )
    assert response["Location"] == reverse("lms:classes")
    assert team["co"].username not in member_roles(team["class"])


def test_a_class_is_handed_over_once_the_new_teacher_accepts(team):
    school_class, owner, co, newcomer = team["class"], team["owner"], team["co"], TeacherFactory()
    settings_url = reverse("lms:class_settings", args=[school_class.pk])
    signed_in(owner).post(settings_url, {"action": "handover", "username": newcomer.username})
    school_class.refresh_from_db()
    assert school_class.handover_to == newcomer and school_class.teacher == owner
    # Offered is not given: the newcomer sees the offer, not the class, and shares nothing yet.
    assert signed_in(newcomer).get(reverse("lms:class", args=[school_class.pk])).status_code == 404
    assert "offers you the class" in signed_in(newcomer).get(reverse("lms:classes")).content.decode()
    assert not runs_for(co, newcomer.pk)
    response = signed_in(newcomer).post(
        reverse("lms:handover_answer", args=[school_class.pk]), {"accept": "1"}
    )
    assert response["Location"] == reverse("lms:class", args=[school_class.pk])
    school_class.refresh_from_db()
    assert school_class.teacher == newcomer and school_class.handover_to is None
    roles = member_roles(school_class)
    assert roles[owner.username] == "teacher" and roles[co.username] == "teacher"
    assert newcomer.username not in roles
    assert signed_in(owner).get(reverse("lms:class", args=[school_class.pk])).status_code == 200


def test_a_declined_or_withdrawn_offer_leaves_the_class_where_it_was(team):
    school_class, owner, newcomer = team["class"], team["owner"], TeacherFactory()
    services.class_handover_offer(school_class=school_class, to=newcomer, by=owner)
    services.class_handover_answer(school_class=school_class, by=newcomer, accept=False)
    school_class.refresh_from_db()
    assert school_class.teacher == owner and school_class.handover_to is None
    services.class_handover_offer(school_class=school_class, to=newcomer, by=owner)
    services.class_handover_cancel(school_class=school_class, by=owner)
    url = reverse("lms:handover_answer", args=[school_class.pk])
    assert signed_in(newcomer).post(url, {"accept": "1"}).status_code == 404
    assert SchoolClass.objects.get(pk=school_class.pk).teacher == owner


def test_only_the_owner_offers_the_class_and_only_to_a_teacher(team):
    school_class = team["class"]
    with pytest.raises(ClassError) as co_offers:
        services.class_handover_offer(school_class=school_class, to=team["stranger"], by=team["co"])
    assert co_offers.value.code == "not_allowed"
    with pytest.raises(ClassError) as stranger_offers:
        services.class_handover_offer(school_class=school_class, to=team["stranger"], by=team["stranger"])
    assert stranger_offers.value.code == "not_found"
    with pytest.raises(ClassError) as to_a_student:
        services.class_handover_offer(school_class=school_class, to=UserFactory(), by=team["owner"])
    assert to_a_student.value.code == "unknown_user"
    # Nobody but the teacher it is offered to answers an offer.
    services.class_handover_offer(school_class=school_class, to=team["stranger"], by=team["owner"])
    for someone in (team["co"], TeacherFactory()):
        with pytest.raises(ClassError):
            services.class_handover_answer(school_class=school_class, by=someone, accept=True)
    assert SchoolClass.objects.get(pk=school_class.pk).teacher == team["owner"]
    assert ClassMember.objects.filter(school_class=school_class, role="teacher").count() == 1
