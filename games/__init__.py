"""The four games and the quizzes: pure engines in ``games/engines/``, sessions around them."""
