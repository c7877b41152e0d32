from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QuizConfig(AppConfig):
    name = "games.quiz"
    label = "quiz"
    verbose_name = _("Quizzes")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Quizzes travel in Talia packages too (content.packages knows nothing of them).
        from .packages import quiz_section_register

        quiz_section_register()
