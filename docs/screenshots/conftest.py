"""The screenshot generator (`make screenshots`) runs on the browser tests' fixtures: the live
server with the demo content, the one chromium and the signed-in pages. It is not a test of
the project: `make test` collects only `tests/`, and this folder is never on its path.

Loaded as plugins, which pytest allows in the conftest of a path given on the command line.
"""

pytest_plugins = ["tests.conftest", "tests.e2e.conftest"]
