"""The web process's ASGI entry point (``config.asgi``): what it does once, at the start."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from config.environment import environment_without_settings

ROOT = Path(__file__).resolve().parents[2]

STARTED = """
import gc, json, sys
import config.asgi
frozen_at_start = gc.get_freeze_count()
garbage = []
garbage.append(garbage)  # a cycle made after the start
del garbage
print("OUT " + json.dumps({
    "frozen": frozen_at_start,
    "views_imported": "games.views" in sys.modules,
    "made_later_collected": gc.collect() >= 1,
    "frozen_after": gc.get_freeze_count(),
}))
"""


def test_what_the_web_process_loaded_at_its_start_is_left_out_of_full_collections(tmp_path):
    """The modules, the views (the URLconf imported before, not at the first request) and
    the settings are frozen; what the process makes later is still collected."""
    env = {
        **environment_without_settings(),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "TALIA_VAR_DIR": str(tmp_path / "var"),
    }
    done = subprocess.run(
        [sys.executable, "-c", STARTED], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
    )

    assert done.returncode == 0, done.stdout + done.stderr
    out = json.loads(next(x for x in done.stdout.splitlines() if x.startswith("OUT ")).removeprefix("OUT "))
    assert out["views_imported"] is True
    assert out["frozen"] > 100_000  # Django, Channels, Talia's modules: a few hundred thousand objects
    assert out["made_later_collected"] is True
    assert out["frozen_after"] == out["frozen"]
