"""Talia's users. A user has one role: admin, teacher or student."""

from django.contrib.auth.models import AbstractUser
from django.contrib.auth.models import UserManager as DjangoUserManager
from django.db import models
from django.utils.translation import gettext_lazy as _


class Role(models.TextChoices):
    ADMIN = "admin", _("Admin")
    TEACHER = "teacher", _("Teacher")
    STUDENT = "student", _("Student")


class UserManager(DjangoUserManager["User"]):
    def create_superuser(self, username, email=None, password=None, **extra_fields):  # type: ignore[no-untyped-def]
        """``createsuperuser`` makes an admin (role and flags agree)."""
        extra_fields.setdefault("role", Role.ADMIN)
        return super().create_superuser(username, email, password, **extra_fields)


class User(AbstractUser):
    """A person using Talia.

    Teachers author content and run games; they reach the admin (``is_staff``) with
    the permissions of the Teachers group. Students never reach the admin or the
    write API. Admins are superusers.
    """

    role = models.CharField(_("role"), max_length=16, choices=Role.choices, default=Role.STUDENT)

    objects = UserManager()

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        verbose_name = _("user")
        verbose_name_plural = _("users")

    @property
    def is_teacher(self) -> bool:
        return self.is_active and self.role == Role.TEACHER

    @property
    def is_admin(self) -> bool:
        return self.is_active and (self.is_superuser or self.role == Role.ADMIN)

    @property
    def can_author(self) -> bool:
        """Teachers and admins author content; students never do."""
        return self.is_teacher or self.is_admin
