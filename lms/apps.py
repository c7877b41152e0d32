from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LmsConfig(AppConfig):
    name = "lms"
    verbose_name = _("People and classes")

    def ready(self) -> None:
        # Imported here, not at the top: the receivers import models, which exist only
        # once the app registry is ready.
        from django.db.models import Q
        from django.urls import reverse

        from games.lobby import code_kind_register

        from .receivers import receivers_connect

        receivers_connect()
        # After the receivers: they import the grading, which the classes' services import.
        from .classes.services import CODE_KIND
        from .models import SchoolClass

        # A class's code opens its join page until the class is archived (games/lobby.py).
        code_kind_register(
            CODE_KIND,
            model=SchoolClass,
            field="join_code",
            open=Q(archived=False),
            page=lambda school_class: reverse("lms:join_code", args=[school_class.join_code]),
        )
