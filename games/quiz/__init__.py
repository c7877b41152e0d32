"""Post-game quizzes: generated from what was played, previewed and published by the
teacher, taken by students with autosave, graded on the server (issue 8)."""
