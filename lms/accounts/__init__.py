"""Student accounts without an LMS: class lists, login cards, signing up with the class code."""
