from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LmsConfig(AppConfig):
    name = "lms"
    verbose_name = _("People and classes")

    def ready(self) -> None:
        # Imported here, not at the top: the receivers import models, which exist only
        # once the app registry is ready.
        from .receivers import receivers_connect

        receivers_connect()
