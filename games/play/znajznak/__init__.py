"""ZnajZnak beyond the shared session page: its setups, class duels, practice alone.

The rules are ``games/engines/znajznak.py``; playing goes through the shared session
machinery (``games/services.py``, the session page, ``static/games/znajznak.js``)."""
