"""QR codes to the education portal page, as SVG (segno, pure Python)."""

from __future__ import annotations

import io

import segno

from .fetcher import data_uri

__all__ = ["qr_data_uri", "qr_svg"]


def qr_svg(url: str) -> bytes:
    """An SVG QR code for ``url``: error correction M, two-module quiet zone, a viewBox
    (no width/height) so it scales to the box it is printed in."""
    code = segno.make(url, error="m", micro=False)
    out = io.BytesIO()
    code.save(
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
