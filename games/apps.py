from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        # Each game tells what its end does (games/actions.py) and what its replay needs
        # (games/replay.py); games/services.py imports no game's module (the games import it).
        from games import actions, replay
        from games.models import GameSession
        from games.play.knowledge import services as knowledge
        from games.play.quiz_live import services as quiz_live
        from games.play.znajznak import practice

        actions.kind_end_effect_register(GameSession.Kind.PRACTICE, practice.practice_result_record)
        actions.end_effect_register("knowledge", knowledge.knowledge_game_end)
        actions.end_effect_register("quiz_live", quiz_live.quiz_live_attempts_record)
        replay.replay_setup_register("knowledge", knowledge.replay_setup)
