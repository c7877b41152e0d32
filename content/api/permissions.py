"""Who may use the content API: the admin's rules (``content/permissions.py``), over HTTP.

Students and anonymous users get 403 on every endpoint: Knowledge? questions carry
their answers, so even reading is for authors only. Rows an author may not see are
out of the queryset (404); rows they see but may not change give 403.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from content.permissions import can_change, can_delete


class IsAuthor(BasePermission):
    """Teachers and admins (``user.can_author``); never students.

    Anonymous requests fail earlier with DRF's "Authentication credentials were not
    provided." (403: session authentication sends no WWW-Authenticate challenge).
    """

    message = _("Only teachers and admins may use the content API.")

    def has_permission(self, request: Request, view: Any) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.can_author)


class IsAdminOrReadOnly(BasePermission):
    """Reference data every author reads and only admins change (periods)."""

    message = _("Only an admin may change this.")

    def has_permission(self, request: Request, view: Any) -> bool:
        return request.method in SAFE_METHODS or bool(request.user.is_admin)


class AuthorsAddAdminsChange(BasePermission):
    """Reference data authors read and add to; changing or deleting a row changes it for
    every teacher, so that is for admins (themes, collections, tags)."""

    message = _("Only an admin may change or delete this; you may add new ones.")

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS or request.method == "POST":
            return True
        return bool(request.user.is_admin)


class ContentObjectPermission(BasePermission):
    """Per-row rules of authored content: change by owner, editors, admins; delete by
    owner and admins. Seeing the row at all is decided by the view's queryset."""

    def has_object_permission(self, request: Request, view: Any, obj: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        if request.method == "DELETE":
            if not can_delete(request.user, obj):
                raise PermissionDenied(_("Only the owner or an admin may delete this."))
            return True
        if not can_change(request.user, obj):
            raise PermissionDenied(
                _("You may not change this: only its owner, the editors they grant and admins may.")
            )
        return True
