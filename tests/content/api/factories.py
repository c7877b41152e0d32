"""Factories the content API tests need beyond ``tests/factories.py``."""

from __future__ import annotations

import factory

from content.models import Tag


class TagFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Tag
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"tag-{n}")
