from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WorkshopConfig(AppConfig):
    name = "games.workshop"
    label = "workshop"
    verbose_name = _("Connect the symbols workshops")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # A workshop's code opens its join page until the workshop closes (games/lobby.py).
        from django.db.models import Q
        from django.urls import reverse

        from games.lobby import code_kind_register

        from .models import Workshop
        from .services import CODE_KIND

        code_kind_register(
            CODE_KIND,
            model=Workshop,
            field="join_code",
            open=~Q(status=Workshop.Status.CLOSED),
            page=lambda workshop: reverse("workshop:join_code", args=[workshop.join_code]),
        )
