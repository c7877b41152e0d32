from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QuizConfig(AppConfig):
    name = "games.quiz"
    label = "quiz"
    verbose_name = _("Quizzes")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Quizzes travel in Talia packages too (content.packages knows nothing of them).
        from django.db.models import Q
        from django.urls import reverse

        from games.lobby import code_kind_register

        from .models import Quiz
        from .packages import quiz_section_register
        from .services import CODE_KIND

        quiz_section_register()
        # A quiz keeps its code for good (its link is handed out); the join entry leads to
        # it once it is published (games/lobby.py).
        code_kind_register(
            CODE_KIND,
            model=Quiz,
            field="code",
            open=Q(),
            page=lambda quiz: (
                reverse("quiz:take", args=[quiz.code]) if quiz.status == Quiz.Status.PUBLISHED else None
            ),
        )
