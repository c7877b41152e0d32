from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ProgressConfig(AppConfig):
    name = "lms.progress"
    label = "progress"
    verbose_name = _("Progress")
    default_auto_field = "django.db.models.BigAutoField"
