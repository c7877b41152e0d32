"""Why an LTI request was refused, in words for the person who sees the page."""

from __future__ import annotations

from django.utils.translation import gettext as _


class LaunchRefused(Exception):
    """A login, launch or registration Talia will not accept.

    ``code`` names the check for programs and logs; ``str()`` is for people; ``status``
    is the HTTP status of the page that explains it (always 4xx). ``detail`` goes to the
    log only (what a library said, for whoever looks into an unforeseen refusal).
    """

    def __init__(
        self, code: str, message: str, *, status: int = 400, hint: str = "", detail: str = ""
    ) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.hint = hint
        self.detail = detail


def launch_gone() -> LaunchRefused:
    """The picker's launch is no longer there (another session, or its LMS rows were removed)."""
    return LaunchRefused(
        "launch_gone",
        _("This page belongs to a launch that has ended."),
        status=403,
        hint=_("Open the activity again from the LMS."),
    )
