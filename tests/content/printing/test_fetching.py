"""The renderer fetches nothing from the network and no file it was not given."""

from __future__ import annotations

import socket
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from weasyprint.urls import URLFetcherResponse

from content.printing import pictures
from content.printing.data import PrintOptions
from content.printing.fetcher import FetchPolicy, FetchRefused, SafeFetcher, data_uri
from content.printing.render import render_auxiliary_cards, render_game_cards

from .helpers import page_texts


class Listener:
    """A TCP server on 127.0.0.1 that counts the connections it gets."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> int:
        self.stop.set()
        self.thread.join(timeout=2)
        self.sock.close()
        return self.connections


@pytest.fixture
def listener():
    server = Listener()
    yield server
    server.close()


@pytest.fixture
def fetched(monkeypatch) -> list[str]:
    """Every URL the renderer's fetcher served (parallel=False: all in this process);
    what it refused goes to ``fetched.refused``."""

    class Seen(list):  # type: ignore[type-arg]
        refused: list[str]

    seen = Seen()
    seen.refused = []
    original = SafeFetcher.fetch

    def spy(self, url, headers=None):
        try:
            response = original(self, url, headers)
        except FetchRefused:
            seen.refused.append(url)
            raise
        seen.append(url)
        return response

    monkeypatch.setattr(SafeFetcher, "fetch", spy)
    return seen


def test_authored_markup_and_urls_are_printed_as_text_and_never_fetched(
    listener, fetched, cards, symbols, periods
) -> None:
    img = f'<img src="http://127.0.0.1:{listener.port}/x.png">'
    link = f'<link rel="stylesheet" href="http://127.0.0.1:{listener.port}/s.css">'
    first = cards[0].symbols[0]
    symbols = {
        **symbols,
        first: replace(
            symbols[first],
            description=f"{img} file:///etc/passwd",
            outline=f"{link} {img} file:///etc/passwd",
            portal_url=f"http://127.0.0.1:{listener.port}/portal",  # printed as a QR code, never opened
        ),
    }
    game = render_game_cards(cards[:1], symbols, periods, PrintOptions(), parallel=False)
    aux = render_auxiliary_cards([symbols[first]], periods, PrintOptions(), parallel=False)

    assert listener.close() == 0
    assert fetched, "the spy saw the renderer's own fonts and pictures"
    assert not [u for u in fetched if u.startswith(("http:", "https:", "ftp:")) or "passwd" in u]
    for pdf in (game, aux):
        back = "".join(page_texts(pdf)[1].split())  # lines wrap inside the URL
        assert "".join(img.split()) in back
        assert "file:///etc/passwd" in back
    assert "".join(link.split()) in "".join(page_texts(aux)[1].split())


def test_an_svg_picture_pointing_elsewhere_fetches_nothing(
    listener, fetched, tmp_path, symbols, periods
) -> None:
    svg = tmp_path / "evil.svg"
    svg.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        'viewBox="0 0 100 100" width="100" height="100"><rect width="100" height="100" fill="#c00"/>'
        f'<image href="http://127.0.0.1:{listener.port}/a.png" width="50" height="50"/>'
        '<image xlink:href="file:///etc/passwd" x="50" width="50" height="50"/></svg>'
    )
    symbol = replace(next(iter(symbols.values())), picture_path=str(svg), picture_format="svg")
    render_auxiliary_cards([symbol], periods, PrintOptions(), parallel=False)  # rasterised (CairoSVG)
    saved = pictures.svg_surface
    pictures.svg_surface = None  # no rasteriser: WeasyPrint draws the SVG itself
    try:
        render_auxiliary_cards([symbol], periods, PrintOptions(), parallel=False)
    finally:
        pictures.svg_surface = saved
    assert listener.close() == 0
    assert not [u for u in fetched if u.startswith("http") or "passwd" in u]
    assert f"file://{svg}" in fetched  # the vector fallback did read the picture itself...
    assert f"http://127.0.0.1:{listener.port}/a.png" in fetched.refused  # ...and was refused the rest
    assert "file:///etc/passwd" in fetched.refused


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/x.png",
        "https://example.org/x.png",
        "ftp://example.org/x.png",
        "file:///etc/passwd",
        "file://otherhost/tmp/x.png",
        "data:image/png;base64,iVBORw0KGgo=",  # not one the renderer made
        "gopher://example.org/",
        "x.png",
    ],
)
def test_the_fetcher_refuses_everything_it_was_not_given(tmp_path: Path, url: str) -> None:
    fetcher = SafeFetcher(FetchPolicy.build(roots=[tmp_path]))
    with pytest.raises(FetchRefused):
        fetcher.fetch(url)
    assert fetcher.refused == [url]


def test_the_fetcher_serves_its_roots_its_files_and_its_own_data(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.css").write_text("p { color: red }")
    single = tmp_path / "pic.png"
    single.write_bytes(b"\x89PNG fake")
    (tmp_path / "other.txt").write_text("secret")
    mine = data_uri(b"<svg/>", "image/svg+xml")
    fetcher = SafeFetcher(FetchPolicy.build(roots=[root], files=[str(single)], data=[mine]))

    response = fetcher.fetch((root / "a.css").as_uri())
    assert isinstance(response, URLFetcherResponse) and response.read() == b"p { color: red }"
    assert fetcher.fetch(single.as_uri()).read() == b"\x89PNG fake"
    assert fetcher.fetch(mine).read() == b"<svg/>"
    for url in ((tmp_path / "other.txt").as_uri(), (root / ".." / "other.txt").as_uri()):
        with pytest.raises(FetchRefused):
            fetcher.fetch(url)


def test_a_symlink_out_of_a_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "passwd").symlink_to("/etc/passwd")
    with pytest.raises(FetchRefused):
        SafeFetcher(FetchPolicy.build(roots=[root])).fetch((root / "passwd").as_uri())
