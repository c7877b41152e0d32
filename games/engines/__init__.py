"""Pure game rules, one module per game; nothing here imports Django."""
