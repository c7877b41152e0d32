"""QR codes to the education portal page (segno, pure Python).

The auxiliary cards print :func:`qr_png_uri`: a small greyscale image of
:data:`MODULE_PX` pixels per module (about 400 dpi on the card), drawn unsmoothed
(``image-rendering: pixelated``), so that a printer or a viewer shows sharp square
modules, as the vector code would be (a viewer may smooth an image it enlarges anyway,
and then blurs only an eighth of a module). WeasyPrint parses and draws
an SVG code's path, several hundred points, on every card: about a quarter of an
auxiliary card back's render. :func:`qr_svg` is the same code as a vector.
"""

from __future__ import annotations

import io

import segno
from PIL import Image, ImageOps

from .fetcher import data_uri

__all__ = ["MODULE_PX", "qr_data_uri", "qr_png", "qr_png_uri", "qr_svg"]

#: Pixels per module of :func:`qr_png`.
MODULE_PX = 8
#: segno's module values as grey levels: dark (1) black, light (0) white.
_GREY = bytes.maketrans(b"\x00\x01", b"\xff\x00")


def _code(url: str) -> segno.QRCode:
    return segno.make(url, error="m", micro=False)


def qr_svg(url: str) -> bytes:
    """An SVG QR code for ``url``: error correction M, two-module quiet zone, a viewBox
    (no width/height) so it scales to the box it is printed in."""
    out = io.BytesIO()
    _code(url).save(
        out,
        kind="svg",
        border=2,
        dark="#000",
        light="#fff",
        xmldecl=False,
        svgns=True,
        omitsize=True,
        nl=False,
    )
    return out.getvalue()


def qr_data_uri(url: str) -> str:
    return data_uri(qr_svg(url), "image/svg+xml")


def qr_png(url: str, scale: int = MODULE_PX, border: int = 2) -> bytes:
    """The same code as a greyscale PNG of ``scale`` pixels per module, a quiet zone of
    ``border`` modules included.

    Drawn by Pillow from segno's module matrix: segno's own PNG writer is pure Python and
    took about a third of a code's time. Greyscale, not 1-bit: WeasyPrint would expand a
    1-bit image to RGB."""
    matrix = _code(url).matrix  # rows of 1 (dark) and 0 (light)
    modules = Image.frombytes("L", (len(matrix), len(matrix)), b"".join(matrix).translate(_GREY))
    quiet = ImageOps.expand(modules, border=border, fill=255)
    grey = quiet.resize((quiet.width * scale, quiet.height * scale), Image.Resampling.NEAREST)
    result = io.BytesIO()
    grey.save(result, "PNG")
    return result.getvalue()


def qr_png_uri(url: str) -> str:
    return data_uri(qr_png(url), "image/png")
