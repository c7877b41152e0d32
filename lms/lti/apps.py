from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LtiConfig(AppConfig):
    """Talia as an LTI 1.3 tool (docs/lms.md)."""

    name = "lms.lti"
    label = "lti"
    verbose_name = _("LMS connections (LTI)")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_migrate, post_save
        from lti_tool.models import LtiRegistration

        from lms.progress.signals import memory_reviewed

        from .columns import memory_reviewed_receive
        from .keys import key_install
        from .selectors import platform_origins_forget

        for name, signal in (("save", post_save), ("delete", post_delete)):
            uid = f"lti-origins-{name}"
            signal.connect(platform_origins_forget, sender=LtiRegistration, dispatch_uid=uid)
        # A signing key from installation on, so /lti/jwks/ is never empty (docs/lms.md, Keys).
        post_migrate.connect(key_install, sender=self, dispatch_uid="lti-key-install")
        # A student's answer changes the mastery the LMS's progress columns show.
        memory_reviewed.connect(memory_reviewed_receive, dispatch_uid="lti-progress-columns")
