from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LmsConfig(AppConfig):
    name = "lms"
    verbose_name = _("People and classes")
