from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LtiConfig(AppConfig):
    """Talia as an LTI 1.3 tool (docs/lms.md)."""

    name = "lms.lti"
    label = "lti"
    verbose_name = _("LMS connections (LTI)")
    default_auto_field = "django.db.models.BigAutoField"
