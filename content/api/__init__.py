"""The content API, version 1."""
