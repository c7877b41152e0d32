"""The embedded worker's live notices, relayed to the web process (``config.live_relay``).

The whole path, worker to projector, is checked on ``make run``'s real processes in
``tests/e2e/test_make_run.py``; here, each end on its own: what the worker's layer posts,
and what the web process accepts and puts on its in-memory layer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core import signing
from django.test import AsyncClient

from config import live_relay
from config.live_relay import RelayChannelLayer, relay_message_read, relay_message_sign

NOTICE = {"type": "session.changed", "version": 4, "broadcast": {"p1": {"hand": [1, 2]}}}


@pytest.fixture(autouse=True)
def _embedded_layer(settings):
    """The embedded mode's web process: its sockets in memory (whatever this test run uses)."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def relayed(body: bytes, *, method: str = "post") -> tuple[int, list[dict[str, Any]]]:
    """Post ``body`` to the web process's endpoint; its status and what a socket of group ``session-7`` got."""

    async def scenario() -> tuple[int, list[dict[str, Any]]]:
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add("session-7", channel)
        client = AsyncClient()
        if method == "post":
            response = await client.post("/live-relay", data=body, content_type="application/octet-stream")
        else:
            response = await client.get("/live-relay")
        heard = []
        with contextlib.suppress(TimeoutError):
            heard.append(await asyncio.wait_for(layer.receive(channel), timeout=0.5))
        await layer.group_discard("session-7", channel)
        return response.status_code, heard

    return async_to_sync(scenario)()


def test_a_signed_notice_reaches_the_sockets_of_its_group():
    status, heard = relayed(relay_message_sign(group="session-7", message=NOTICE))

    assert status == 204
    assert heard == [NOTICE]


def test_a_notice_for_another_group_reaches_no_socket_of_this_one():
    status, heard = relayed(relay_message_sign(group="session-8", message=NOTICE))

    assert (status, heard) == (204, [])


def test_a_changed_notice_is_refused_and_goes_nowhere():
    body = relay_message_sign(group="session-7", message=NOTICE)
    value, signature = body.rsplit(b":", 1)
    forged = signing.dumps(
        {"group": "session-7", "message": {**NOTICE, "version": 99}}, salt=live_relay.SALT, compress=True
    )

    assert relayed(value + b":" + signature[:-2] + b"xx") == (403, [])
    assert relayed(forged.rsplit(":", 1)[0].encode() + b":" + signature) == (403, [])
    assert relayed(b"\xff\xfe not even text") == (403, [])


def test_a_notice_signed_with_another_key_is_refused(settings):
    settings.SECRET_KEY = "another installation's key, long enough to be a key"
    body = relay_message_sign(group="session-7", message=NOTICE)
    settings.SECRET_KEY = "this installation's key, long enough to be a key too"

    assert relayed(body) == (403, [])


def test_an_old_notice_replayed_is_refused(monkeypatch):
    then = time.time() - live_relay.MAX_AGE_SECONDS - 5
    with monkeypatch.context() as patch:
        patch.setattr(signing.time, "time", lambda: then)
        body = relay_message_sign(group="session-7", message=NOTICE)

    assert relayed(body) == (403, [])


def test_only_posts_are_relayed():
    assert relayed(b"", method="get") == (405, [])


def test_with_another_channel_layer_the_endpoint_is_not_there(settings):
    # Redis deployments: every process reaches every socket through Redis; nothing to relay.
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "config.live_relay.RelayChannelLayer",
            "CONFIG": {"url": "http://127.0.0.1:9/"},
        }
    }

    async def post() -> int:
        body = relay_message_sign(group="session-7", message=NOTICE)
        response = await AsyncClient().post("/live-relay", data=body, content_type="application/octet-stream")
        return response.status_code

    assert async_to_sync(post)() == 404


# --- the worker's end -------------------------------------------------------------------------


class _Recorder(BaseHTTPRequestHandler):
    bodies: list[bytes] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        self.bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def web_process():
    """A stand-in for the web process that records what it is posted."""
    _Recorder.bodies = []
    server = HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/live-relay", _Recorder.bodies
    server.shutdown()
    server.server_close()


def test_the_workers_layer_posts_each_group_send_signed(web_process):
    url, bodies = web_process

    async_to_sync(RelayChannelLayer(url=url).group_send)("session-7", NOTICE)

    assert [relay_message_read(body) for body in bodies] == [("session-7", NOTICE)]


def test_the_workers_layer_checks_group_names_as_every_layer_does(web_process):
    url, bodies = web_process

    with pytest.raises(TypeError):
        async_to_sync(RelayChannelLayer(url=url).group_send)("no spaces allowed", NOTICE)
    assert bodies == []


def test_a_web_process_that_is_down_loses_the_notice_not_the_task(caplog):
    # A Celery test worker earlier in the run may leave the root logger at ERROR.
    caplog.set_level(logging.WARNING, logger="config.live_relay")
    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/live-relay"

    async_to_sync(RelayChannelLayer(url=url, timeout=1).group_send)("session-7", NOTICE)

    assert "not relayed" in caplog.text


def test_the_workers_layer_cannot_receive():
    layer = RelayChannelLayer(url="http://127.0.0.1:9/")

    with pytest.raises(NotImplementedError):
        async_to_sync(layer.group_add)("session-7", "specific.abc!def")
