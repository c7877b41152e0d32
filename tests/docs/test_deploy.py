"""docs/deploy.md prints the proxy's site and the service units as they are in deploy/.

CI runs those files themselves (.ci/production-up links the site into nginx and runs the
units' ExecStart lines), so a page that printed anything else would document a path that
nobody tests.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY_FILES = sorted(
    [*(ROOT / "deploy" / "nginx").glob("*.conf"), *(ROOT / "deploy" / "systemd").glob("*.service")]
)
FENCED = re.compile(r"^```[a-z]*\n(.*?)^```$", re.S | re.M)


def fenced_blocks(text: str) -> list[str]:
    return FENCED.findall(text)


def test_there_are_a_site_and_the_three_units():
    names = {path.name for path in DEPLOY_FILES}
    assert names == {"talia.conf", "talia-web@.service", "talia-worker.service", "talia-beat.service"}


@pytest.mark.parametrize("path", DEPLOY_FILES, ids=lambda path: path.name)
def test_deploy_md_prints_the_file_byte_for_byte(path):
    docs = (ROOT / "docs" / "deploy.md").read_bytes().decode()
    text = path.read_bytes().decode()
    relative = path.relative_to(ROOT).as_posix()
    assert f"`{relative}`" in docs, f"docs/deploy.md does not name {relative}"
    assert text in fenced_blocks(docs), f"docs/deploy.md does not print {relative} as it is"


def test_a_changed_line_is_not_the_file():
    """The comparison is exact: one character more in a block is another file."""
    text = (ROOT / "deploy" / "nginx" / "talia.conf").read_text()
    docs = (ROOT / "docs" / "deploy.md").read_text().replace(text, text.replace("200m", "201m"))
    assert text not in fenced_blocks(docs)
