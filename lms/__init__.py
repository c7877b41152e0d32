"""People and classes: Talia's users and roles; later the LTI 1.3 tool, classes and scores."""
