"""Know, run live in class: setup page, projector screen, question bank (issue: Know in class).

The rules are ``games/engines/know.py``; playing goes through the shared session machinery
(``games/services.py``, the session page, ``static/games/know.js``)."""
