"""Knowledge? in the browser: setup, solo homework, the team's shared game and the results."""
