"""Demo content: symbols of Polish history 1918–1989, Activity cards, Knowledge? questions."""
