from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        # Each game tells what its end does (games/actions.py) and what its replay needs
        # (games/replay.py); games/services.py imports no game's module (the games import it).
        from django.db.models import Q
        from django.urls import reverse

        from games import actions, lobby, replay
        from games import services as game_services
        from games.models import GameSession, PracticeAssignment
        from games.play.knowledge import services as knowledge
        from games.play.quiz_live import services as quiz_live
        from games.play.znajznak import practice

        actions.kind_end_effect_register(GameSession.Kind.PRACTICE, practice.practice_result_record)
        actions.end_effect_register("knowledge", knowledge.knowledge_game_end)
        actions.end_effect_register("quiz_live", quiz_live.quiz_live_attempts_record)
        replay.replay_setup_register("knowledge", knowledge.replay_setup)
        # The code space (games/lobby.py): a session's code opens its join page while it is
        # open; a practice's, its page for good (its link is handed out).
        lobby.code_kind_register(
            game_services.CODE_KIND,
            model=GameSession,
            field="join_code",
            open=~Q(status=GameSession.Status.FINISHED),
            page=lambda session: reverse("games:join_code", args=[session.join_code]),
        )
        lobby.code_kind_register(
            practice.CODE_KIND,
            model=PracticeAssignment,
            field="code",
            open=Q(),
            page=lambda assignment: reverse("games:practice", args=[assignment.code]),
        )
