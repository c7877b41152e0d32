from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WorkshopConfig(AppConfig):
    name = "games.workshop"
    label = "workshop"
    verbose_name = _("Connect the symbols workshops")
    default_auto_field = "django.db.models.BigAutoField"
