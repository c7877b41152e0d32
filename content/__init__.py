"""Authoring of game content: symbols, periods, themes, symbol sets, Activity cards,
Knowledge? questions; import and export; deck building and printing."""
