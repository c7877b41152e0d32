"""Writes to users and roles. The only place that turns a role into Django's flags."""

from django.contrib.auth.models import Group
from django.db import transaction

from .models import Role, User

TEACHERS_GROUP = "Teachers"


@transaction.atomic
def user_create(
    *,
    username: str,
    password: str | None,
    role: str,
    email: str = "",
    first_name: str = "",
    last_name: str = "",
) -> User:
    """Create a user with a role. Teachers get the admin and the Teachers group."""
    user = User(username=username, email=email, first_name=first_name, last_name=last_name)
    if password:
        user.set_password(password)
    else:
        user.set_unusable_password()
    user.save()
    return user_set_role(user=user, role=role)


@transaction.atomic
def user_set_role(*, user: User, role: str) -> User:
    """Give ``user`` ``role`` and the flags and group that go with it."""
    if role not in Role.values:
        raise ValueError(f"Unknown role {role!r}; use one of {', '.join(Role.values)}.")
    user.role = role
    user.is_staff = role in (Role.TEACHER, Role.ADMIN)
    user.is_superuser = role == Role.ADMIN
    user.save(update_fields=["role", "is_staff", "is_superuser"])
    teachers = Group.objects.get(name=TEACHERS_GROUP)
    if role == Role.TEACHER:
        user.groups.add(teachers)
    else:
        user.groups.remove(teachers)
    return user
