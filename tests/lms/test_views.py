"""The home page (lms/views.py): what a signed-in student is told is waiting for them."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import TeacherFactory, UserFactory
from tests.lms.factories_classes import class_with_students, practice_homework

pytestmark = pytest.mark.django_db


def home_of(user) -> str:
    client = Client()
    client.force_login(user)
    return client.get(reverse("home")).content.decode()


def test_a_students_home_shows_the_homework_waiting_instead_of_saying_it_will_appear():
    teacher, student = TeacherFactory(), UserFactory()
    school_class = class_with_students(teacher, student)
    page = home_of(student)
    assert "homework will appear here" in page
    homework = practice_homework(school_class, title="Symbole okresu II RP")
    page = home_of(student)
    assert "homework will appear here" not in page
    assert "Symbole okresu II RP" in page
    assert reverse("lms:homework_detail", args=[homework.pk]) in page


def test_a_teachers_home_lists_no_homework_of_their_own_classes():
    teacher, student = TeacherFactory(), UserFactory()
    practice_homework(class_with_students(teacher, student), title="Symbole okresu II RP")
    assert "Symbole okresu II RP" not in home_of(teacher)
