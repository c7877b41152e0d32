from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ProgressConfig(AppConfig):
    name = "lms.progress"
    label = "progress"
    verbose_name = _("Progress")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported here, not at the top: the services import models, which exist only once
        # the app registry is ready.
        from games.signals import item_answered, items_answered, session_finished

        from .services import item_answered_receive, items_answered_receive, session_finished_receive

        item_answered.connect(item_answered_receive, dispatch_uid="progress.item_answered")
        items_answered.connect(items_answered_receive, dispatch_uid="progress.items_answered")
        session_finished.connect(session_finished_receive, dispatch_uid="progress.session_finished")
