"""factory_boy factories for Talia's models."""

from __future__ import annotations

import factory

from content.models import (
    ActivityCard,
    ActivityTerm,
    Collection,
    KnowledgeQuestion,
    Period,
    Status,
    Symbol,
    SymbolSet,
    SymbolSetMember,
    Theme,
)
from lms.models import Role, User
from lms.services import user_set_role


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.PostGenerationMethodCall("set_password", "pass-word-123")
    role = Role.STUDENT

    @factory.post_generation
    def apply_role(self, create, extracted, **kwargs):
        if create:
            self.save()
            user_set_role(user=self, role=self.role)


class TeacherFactory(UserFactory):
    role = Role.TEACHER


class AdminFactory(UserFactory):
    role = Role.ADMIN


class CollectionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Collection
        django_get_or_create = ("slug",)

    slug = "test-collection"
    name = "Test collection"


class ThemeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Theme
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"theme-{n}")
    name = factory.Sequence(lambda n: f"Theme {n}")


class SymbolFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Symbol
        skip_postgeneration_save = True

    collection = factory.SubFactory(CollectionFactory)
    number = factory.Sequence(lambda n: n % 999 + 1)
    name = factory.Sequence(lambda n: f"Symbol {n}")
    description = "An explanatory description."
    status = Status.PUBLISHED
    owner = factory.SubFactory(TeacherFactory)

    @factory.post_generation
    def periods(self, create, extracted, **kwargs):
        if create:
            self.periods.set(extracted or [Period.objects.get(slug="ii-rp")])


class SymbolSetFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = SymbolSet

    name = factory.Sequence(lambda n: f"Set {n}")
    slug = factory.Sequence(lambda n: f"set-{n}")
    owner = factory.SubFactory(TeacherFactory)


def symbol_set_with(symbols, **kwargs) -> SymbolSet:
    symbol_set = SymbolSetFactory(**kwargs)
    SymbolSetMember.objects.bulk_create(
        SymbolSetMember(symbol_set=symbol_set, symbol=s, position=i) for i, s in enumerate(symbols, start=1)
    )
    return symbol_set


class ActivityCardFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ActivityCard
        skip_postgeneration_save = True

    status = Status.PUBLISHED
    owner = factory.SubFactory(TeacherFactory)

    @factory.post_generation
    def terms(self, create, extracted, **kwargs):
        if create:
            for slot in "ABCDEF":
                ActivityTerm.objects.create(card=self, slot=slot, text=f"term {slot}{self.pk}", points=4)


class KnowledgeQuestionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = KnowledgeQuestion

    category = "number"
    front = factory.Sequence(lambda n: f"How many? ({n})")
    back = "Odpowiedź: 3."
    answer = 3
    status = Status.PUBLISHED
    owner = factory.SubFactory(TeacherFactory)
