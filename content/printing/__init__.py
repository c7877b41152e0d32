"""Print-ready PDFs of every game's cards (WeasyPrint), from plain data.

``content.printing.data`` is the contract (frozen dataclasses, no models) and
``content.printing.render`` the entry points: ``render_game_cards``,
``render_auxiliary_cards``, ``render_activity_cards``, ``render_knowledge_cards``,
``render_know_cards``.  This package imports nothing heavy until asked, so the
rendering worker processes start quickly.
"""
