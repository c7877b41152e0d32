"""Activity in class: the setup page, teams in the lobby, the hourglass on the server's clock, term lists."""
