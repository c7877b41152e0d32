"""Talia's signing keys exist from installation on: /lti/jwks/ is never an empty key set."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from lti_tool.models import Key

pytestmark = pytest.mark.django_db(transaction=True)


def test_migrate_on_a_database_without_keys_publishes_a_key(client):
    Key.objects.all().delete()
    assert client.get("/lti/jwks/").json() == {"keys": []}
    call_command("migrate", verbosity=0, stdout=io.StringIO())
    published = client.get("/lti/jwks/").json()["keys"]
    assert [k["kid"] for k in published] == [str(Key.objects.get())]


def test_migrate_again_keeps_the_key_and_rotation_still_replaces_it(client):
    call_command("migrate", verbosity=0, stdout=io.StringIO())
    first = Key.objects.get()
    call_command("migrate", verbosity=0, stdout=io.StringIO())
    assert list(Key.objects.all()) == [first]
    call_command("lti_rotate_keys", stdout=io.StringIO())
    kids = {k["kid"] for k in client.get("/lti/jwks/").json()["keys"]}
    assert kids == {str(first), str(Key.objects.exclude(pk=first.pk).get())}
