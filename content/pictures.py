"""Validation of the pictures that curators upload for symbols.

This module is deliberately free of Django: it takes bytes and returns a
:class:`Picture` or raises :class:`PictureError` whose message a curator can act on.

* The format is detected from the bytes, never from the file name.
* Raster pictures (PNG, JPEG, WebP) are opened with Pillow with decompression-bomb
  protection, verified and fully decoded, and their dimensions are checked.
* SVG pictures are parsed with defusedxml (no DTD, entities or external references)
  and rebuilt from an allowlist of elements, attributes and style properties; the
  rebuilt (sanitised) bytes are what must be stored.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
import re
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from defusedxml import (  # type: ignore[import-untyped]
    DefusedXmlException,
    DTDForbidden,
    EntitiesForbidden,
    ExternalReferenceForbidden,
)
from defusedxml.ElementTree import iterparse as _defused_iterparse  # type: ignore[import-untyped]
from PIL import Image, ImageCms, ImageFile, ImageOps, JpegImagePlugin

__all__ = [
    "ALLOWED_FORMATS",
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_ELEMENTS",
    "MAX_PIXELS",
    "MAX_SIDE",
    "MIN_SIDE",
    "Picture",
    "PictureError",
    "check_picture",
    "picture_extension",
    "raster_for_players",
    "sanitise_svg",
    "svg_for_players",
]

ALLOWED_FORMATS = ("png", "jpeg", "webp", "svg")
MAX_BYTES = 5 * 1024 * 1024  # 5 MiB
MAX_PIXELS = 25_000_000  # width*height for raster images
MAX_SIDE = 8000  # px, either side
MIN_SIDE = 64  # px, raster images smaller than this are too small to recognise on a card
MAX_ELEMENTS = 20_000  # SVG elements in the uploaded file
MAX_DEPTH = 50  # SVG nesting levels, the root element being level 1
# Elements drawn once <use> references are expanded (guards against "use bombs").
MAX_RENDERED_ELEMENTS = 5 * MAX_ELEMENTS

_ACCEPTED = "upload a PNG, JPEG, WebP or SVG picture"

_EXTENSIONS = {"png": ".png", "jpeg": ".jpg", "webp": ".webp", "svg": ".svg"}
_CONTENT_TYPES = {
    "png": "image/png",
    "jpeg": "image/jpeg",
    "webp": "image/webp",
    "svg": "image/svg+xml",
}
_PILLOW_FORMATS = {"png": "PNG", "jpeg": "JPEG", "webp": "WEBP"}
# Pillow reports camera "multi-picture" JPEGs (a photo plus e.g. a depth map) as MPO.
_PILLOW_TO_FORMAT = {"PNG": "png", "JPEG": "jpeg", "MPO": "jpeg", "WEBP": "webp"}

_MEBIBYTE = 1024 * 1024


class PictureError(ValueError):
    """A picture was refused; str(error) is a message a curator can act on.

    Messages are English, one sentence, and say what to do.
    """


@dataclass(frozen=True)
class Picture:
    """An accepted picture, ready to be stored."""

    # The original bytes for raster formats, the sanitised SVG bytes for svg.
    data: bytes = field(repr=False)
    format: str  # one of ALLOWED_FORMATS
    extension: str  # ".png", ".jpg", ".webp", ".svg"
    width: int | None  # px; for SVG from width/height or viewBox when determinable
    height: int | None
    content_type: str  # "image/png", ...


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------


def check_picture(data: bytes, filename: str = "") -> Picture:
    """Validate an uploaded picture and return what should be stored.

    ``filename`` is only used to make messages clearer; the content decides the format.
    Raises :class:`PictureError` when the picture is refused.
    """
    data = bytes(data)
    if not data:
        raise PictureError(f"{_subject(filename)} is empty; {_ACCEPTED}.")
    _check_byte_size(len(data))
    fmt = _sniff(data)
    if fmt is None:
        raise PictureError(_unsupported_message(data, filename))
    if fmt == "svg":
        clean, root = _sanitise(data)
        width, height = _svg_dimensions(root)
        return Picture(clean, "svg", _EXTENSIONS["svg"], width, height, _CONTENT_TYPES["svg"])
    width, height = _inspect_raster(data, fmt, min_side=MIN_SIDE)
    return Picture(data, fmt, _EXTENSIONS[fmt], width, height, _CONTENT_TYPES[fmt])


def picture_extension(data: bytes) -> str:
    """The extension of the accepted format the bytes are in (".png", ".jpg", ".webp",
    ".svg"), told as :func:`check_picture` tells it but without checking the picture;
    "" for any other content.

    >>> picture_extension(b"\\x89PNG\\r\\n\\x1a\\n...")
    '.png'
    """
    fmt = _sniff(bytes(data))
    return _EXTENSIONS[fmt] if fmt else ""


def sanitise_svg(data: bytes) -> bytes:
    """Return a safe copy of an SVG document, rebuilt from an allowlist.

    Raises :class:`PictureError` when the document cannot be parsed safely, is not an
    SVG, is too complex, or has nothing drawable left after sanitising.
    """
    data = bytes(data)
    _check_byte_size(len(data))
    clean, _root = _sanitise(data)
    return clean


def svg_for_players(data: bytes) -> bytes:
    """The copy of a stored SVG that players and quiz-takers receive: it draws the same
    shapes and says nothing about what it shows.

    On top of :func:`sanitise_svg` (run again: files stored under older rules get the
    current ones), it drops ``<title>``, ``<desc>`` and every ``<text>`` with its
    ``<tspan>`` (the demo pictures named their symbol in ``<title>``; lettering in a
    picture turns naming it into reading it), and renames every ``id`` to an opaque one
    (``i1``, ``i2``, … in document order; an id such as ``jozef-pilsudski-sash`` names the
    subject), rewriting ``href="#…"`` and ``url(#…)`` to match so gradients, clips and
    ``<use>`` still work. ``<metadata>``, ``aria-*`` and other attributes outside the
    allowlist never survive the sanitiser. A picture that was only lettering comes out
    blank rather than readable.

    >>> svg = svg_for_players(b'<svg xmlns="http://www.w3.org/2000/svg"><title>Kotwica</title>'
    ...                       b'<rect id="kotwica" width="1" height="1"/></svg>')
    >>> svg.decode().splitlines()[1]
    '<svg xmlns="http://www.w3.org/2000/svg"><rect id="i1" width="1" height="1" /></svg>'
    """
    data = bytes(data)
    _check_byte_size(len(data))
    _clean, root = _sanitise(data)
    _drop_telling_elements(root)
    _rename_ids(root)
    played: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return played


def raster_for_players(data: bytes) -> bytes:
    """The copy of a stored PNG, JPEG, WebP or GIF that players and quiz-takers receive:
    the same pixels re-encoded by Pillow with no metadata at all.

    A camera or an editor writes words beside the pixels (EXIF titles and authors, PNG
    ``tEXt``/``iTXt``/``zTXt`` comments, XMP, a JPEG or GIF comment, an ICC profile whose
    description is free text), and any of them may name what the picture shows. Rather
    than chase each kind, only pixels are carried over: the EXIF orientation is applied
    first (so a photo is not turned on its side when the tag goes), an ICC profile is
    applied by converting to sRGB (so colours stay right without it), and the picture is
    saved from a fresh image with nothing but its transparency. A JPEG keeps its
    quantisation tables and a lossless WebP stays lossless, so nothing visible is lost;
    an animated GIF or WebP keeps its first frame (uploads are still pictures).

    Raises :class:`PictureError` when the bytes are not a readable raster picture.

    >>> from PIL import PngImagePlugin
    >>> info = PngImagePlugin.PngInfo()
    >>> info.add_text("Title", "Kotwica")
    >>> image = Image.new("RGB", (64, 64), "red")
    >>> original = io.BytesIO()
    >>> image.save(original, "PNG", pnginfo=info)
    >>> b"Kotwica" in raster_for_players(original.getvalue())
    False
    """
    data = bytes(data)
    _check_byte_size(len(data))
    fmt = "gif" if data.startswith((b"GIF87a", b"GIF89a")) else _sniff(data)
    if fmt not in _PLAYER_RASTER_FORMATS:
        raise _unreadable()
    pillow_format = _PLAYER_RASTER_FORMATS[fmt]
    try:
        with _bombs_refused(), Image.open(io.BytesIO(data), formats=[pillow_format]) as source:
            options = _player_save_options(source, fmt, data)
            frame = ImageOps.exif_transpose(source) or source
            frame.load()
            pixels = _in_srgb(frame, source.info.get("icc_profile"))
            bare = Image.frombytes(pixels.mode, pixels.size, pixels.tobytes())
            if pixels.mode in ("P", "PA") and pixels.palette is not None:
                bare.putpalette(pixels.palette)
            if "transparency" in pixels.info and pixels.mode in ("P", "L", "RGB", "I", "I;16"):
                options["transparency"] = pixels.info["transparency"]
            out = io.BytesIO()
            bare.save(out, pillow_format, **options)
    except PictureError:
        raise
    except Exception as error:  # Pillow raises many kinds of errors on bad input.
        raise _unreadable() from error
    return out.getvalue()


_PLAYER_RASTER_FORMATS = {"png": "PNG", "jpeg": "JPEG", "webp": "WEBP", "gif": "GIF"}


def _player_save_options(source: Image.Image, fmt: str, data: bytes) -> dict[str, Any]:
    if fmt == "jpeg":
        tables = getattr(source, "quantization", None)
        if tables:  # as the source was compressed, so a second pass loses next to nothing
            return {"qtables": tables, "subsampling": _jpeg_sampling(source)}
        return {"quality": 95}
    if fmt == "webp":
        return {"lossless": True} if _webp_is_lossless(data) else {"quality": 95}
    return {}


def _webp_is_lossless(data: bytes) -> bool:
    """Whether the WebP's image chunk is ``VP8L`` (lossless) rather than ``VP8 ``; the
    chunks before it (``VP8X``, ``ICCP``, ``ANIM``) are stepped over by their sizes."""
    position = 12
    while position + 8 <= len(data):
        kind = data[position : position + 4]
        if kind in (b"VP8L", b"VP8 "):
            return kind == b"VP8L"
        if kind == b"ANMF":  # an animation frame holds its image chunk after 16 bytes
            position += 8 + 16
            continue
        size = int.from_bytes(data[position + 4 : position + 8], "little")
        position += 8 + size + (size & 1)
    return False


def _jpeg_sampling(source: Image.Image) -> int:
    sampling: int = JpegImagePlugin.get_sampling(source)
    return sampling if sampling >= 0 else 2


def _in_srgb(image: Image.Image, icc: bytes | None) -> Image.Image:
    """``image`` with its ICC profile applied (converted to sRGB), or as it is."""
    if not icc or image.mode not in ("RGB", "RGBA", "CMYK"):
        return image
    try:
        output = "RGBA" if image.mode == "RGBA" else "RGB"
        profile, srgb = ImageCms.ImageCmsProfile(io.BytesIO(icc)), ImageCms.createProfile("sRGB")
        converted = ImageCms.profileToProfile(image, profile, srgb, outputMode=output)
    except (ImageCms.PyCMSError, OSError, ValueError, TypeError):
        return image  # a profile lcms cannot read: its pixels as they are, without it
    return converted if converted is not None else image


# Elements whose only purpose, or whose only content, is words.
_TELLING_ELEMENTS = frozenset({"title", "desc", "text", "tspan", "metadata"})
_URL_REFERENCE = re.compile(r"""url\(\s*(["']?)#([\w.-]+)\1\s*\)""")


def _drop_telling_elements(parent: ET.Element) -> None:
    for child in list(parent):
        if child.tag in _TELLING_ELEMENTS:
            parent.remove(child)  # its tail is whitespace outside a text container
        else:
            _drop_telling_elements(child)
    if parent.tag not in _TEXT_CONTAINERS:
        parent.text = None


def _rename_ids(root: ET.Element) -> None:
    renamed: dict[str, str] = {}

    def opaque(identifier: str) -> str:
        if identifier not in renamed:
            renamed[identifier] = f"i{len(renamed) + 1}"
        return renamed[identifier]

    def in_value(value: str) -> str:
        return _URL_REFERENCE.sub(lambda m: f"url(#{opaque(m.group(2))})", value)

    for element in root.iter():
        for name, value in list(element.attrib.items()):
            if name == "id":
                element.set(name, opaque(value))
            elif name == "href" and value.startswith("#"):
                element.set(name, "#" + opaque(value[1:]))
            elif "url(" in value:
                element.set(name, in_value(value))


# ---------------------------------------------------------------------------
# Format detection and messages
# ---------------------------------------------------------------------------

_UTF8_BOM = b"\xef\xbb\xbf"
_SVG_TAG = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?svg[\s/>]")


def _sniff(data: bytes) -> str | None:
    """Return the allowed format the bytes are in, or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    text = _strip_xml_prefix(data)
    if text.startswith(b"<") and _SVG_TAG.search(text):
        return "svg"
    return None


def _strip_xml_prefix(data: bytes) -> bytes:
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM) :]
    return data.lstrip()


def _describe(data: bytes) -> str | None:
    """Name a common format we refuse, for a more helpful message."""
    signatures: tuple[tuple[bytes, str], ...] = (
        (b"GIF87a", "a GIF picture"),
        (b"GIF89a", "a GIF picture"),
        (b"BM", "a BMP picture"),
        (b"II*\x00", "a TIFF picture"),
        (b"MM\x00*", "a TIFF picture"),
        (b"%PDF", "a PDF document"),
        (b"PK\x03\x04", "a ZIP archive or office document"),
        (b"\x1f\x8b", "a compressed (gzip or SVGZ) file"),
        (b"8BPS", "a Photoshop document"),
        (b"\x00\x00\x01\x00", "an icon (ICO) file"),
    )
    for magic, kind in signatures:
        if data.startswith(magic):
            return kind
    if data[4:8] == b"ftyp":
        brand = data[8:12]
        if brand.startswith(b"avi"):
            return "an AVIF picture"
        if brand in (b"heic", b"heix", b"hevc", b"mif1", b"msf1"):
            return "a HEIC picture"
        return "a video or MP4-style file"
    text = _strip_xml_prefix(data)[:512].lower()
    if text.startswith((b"<!doctype html", b"<html")) or b"<html" in text:
        return "an HTML page"
    if text.startswith(b"<"):
        return "an XML document that is not an SVG picture"
    if b"\x00" not in data[:4096]:
        try:
            data[:4096].decode("utf-8")
        except UnicodeDecodeError:
            return None
        return "a text file"
    return None


def _subject(filename: str) -> str:
    name = re.split(r"[\\/]", filename)[-1]
    name = re.sub(r"[\x00-\x1f\x7f\"]", "", name).strip()
    if len(name) > 60:
        name = name[:57] + "..."
    return f'The file "{name}"' if name else "The file"


def _unsupported_message(data: bytes, filename: str) -> str:
    kind = _describe(data)
    if kind is None:
        return f"{_subject(filename)} is not in an accepted picture format; {_ACCEPTED}."
    return f"{_subject(filename)} is {kind}, which is not accepted; {_ACCEPTED}."


def _megabytes(size: int) -> str:
    shown = f"{size / _MEBIBYTE:.1f}"
    if float(shown) <= MAX_BYTES / _MEBIBYTE:
        # Round up so that a file just over the limit never reads as "5.0 MB".
        shown = f"{math.ceil(size * 10 / _MEBIBYTE) / 10:.1f}"
    return shown


def _check_byte_size(size: int) -> None:
    if size > MAX_BYTES:
        raise PictureError(
            f"The picture is {_megabytes(size)} MB; the limit is {MAX_BYTES / _MEBIBYTE:g} MB, "
            "so save a smaller or more compressed version and upload that."
        )


# ---------------------------------------------------------------------------
# Raster pictures
# ---------------------------------------------------------------------------


def _check_dimensions(width: int, height: int, min_side: int) -> None:
    if width > MAX_SIDE or height > MAX_SIDE:
        raise PictureError(
            f"The picture is {width}×{height} pixels; neither side may be more than "
            f"{MAX_SIDE} pixels, so scale it down and upload it again."
        )
    if width * height > MAX_PIXELS:
        raise PictureError(
            f"The picture is {width}×{height} pixels ({width * height / 1e6:.1f} megapixels); "
            f"the limit is {MAX_PIXELS / 1e6:g} megapixels, so scale it down and upload it again."
        )
    if width < min_side or height < min_side:
        raise PictureError(
            f"The picture is only {width}×{height} pixels, too small to recognise on a card; "
            f"upload a version at least {min_side} pixels on each side."
        )


@contextmanager
def _bombs_refused() -> Iterator[None]:
    """Pillow warns (rather than raises) between MAX_IMAGE_PIXELS and twice that; turn
    that into an error, and keep Pillow's other warnings out of the logs."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        yield


def _inspect_raster(data: bytes, fmt: str, *, min_side: int) -> tuple[int, int]:
    """Open, verify and fully decode a PNG, JPEG or WebP; return (width, height)."""
    pillow_format = _PILLOW_FORMATS[fmt]
    try:
        with _bombs_refused():
            with Image.open(io.BytesIO(data), formats=[pillow_format]) as image:
                if _PILLOW_TO_FORMAT.get(image.format or "") != fmt:
                    raise _unreadable()
                width, height = image.size
                # Checked from the header, before any pixel data is decoded.
                _check_dimensions(width, height, min_side)
                frames = int(getattr(image, "n_frames", 1))
                if frames > 1 and image.format != "MPO":
                    raise PictureError(
                        f"The picture is animated ({frames} frames); upload a still PNG, JPEG, "
                        "WebP or SVG picture instead."
                    )
                image.verify()
            # verify() leaves the image unusable and does not decode everything, so
            # decode a fresh copy completely to catch truncated or corrupt data.
            # Libraries may relax Pillow process-wide (WeasyPrint sets
            # LOAD_TRUNCATED_IMAGES on import); the check must stay strict regardless.
            relaxed, ImageFile.LOAD_TRUNCATED_IMAGES = ImageFile.LOAD_TRUNCATED_IMAGES, False
            try:
                with Image.open(io.BytesIO(data), formats=[pillow_format]) as image:
                    image.load()
            finally:
                ImageFile.LOAD_TRUNCATED_IMAGES = relaxed
    except PictureError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
        raise PictureError(
            f"The picture claims to be far larger than the limit of {MAX_PIXELS / 1e6:g} "
            "megapixels; scale it down, save it again and upload the new file."
        ) from error
    except Exception as error:  # Pillow raises many kinds of errors on bad input.
        raise _unreadable() from error
    return width, height


def _unreadable() -> PictureError:
    return PictureError(
        "The file is not a readable PNG, JPEG or WebP picture (it may be damaged or "
        "incomplete); open it in an image editor, save it again and upload the new file."
    )


# ---------------------------------------------------------------------------
# SVG pictures
# ---------------------------------------------------------------------------

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
XML_NS = "http://www.w3.org/XML/1998/namespace"

_ALLOWED_ELEMENTS = frozenset(
    {
        "svg", "g", "defs", "title", "desc", "path", "rect", "circle", "ellipse", "line",
        "polyline", "polygon", "text", "tspan", "linearGradient", "radialGradient", "stop",
        "clipPath", "mask", "pattern", "symbol", "use", "image",
    }
)  # fmt: skip
# Links mean nothing in a picture shown on a card; keep their content as a group.
_RENAMED_ELEMENTS = {"a": "g"}
# Elements whose text content is kept; tails are kept only inside the text ones.
_TEXT_ELEMENTS = frozenset({"text", "tspan", "title", "desc"})
_TEXT_CONTAINERS = frozenset({"text", "tspan"})
# Elements that may refer to another element of the same document with href="#id".
_LOCAL_HREF_ELEMENTS = frozenset({"use", "linearGradient", "radialGradient", "pattern"})
# Elements whose content is not drawn where it stands.
_NOT_RENDERED = frozenset(
    {"defs", "title", "desc", "linearGradient", "radialGradient", "clipPath", "mask",
     "pattern", "symbol"}
)  # fmt: skip

# Presentation properties: allowed both as attributes and inside style="...".
_PRESENTATION = frozenset(
    {
        "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity",
        "stroke-linecap", "stroke-linejoin", "stroke-miterlimit", "stroke-dasharray",
        "stroke-dashoffset", "opacity", "clip-path", "clip-rule", "mask", "color", "display",
        "visibility", "stop-color", "stop-opacity", "font-family", "font-size", "font-weight",
        "font-style", "font-variant", "font-stretch", "text-anchor", "dominant-baseline",
        "alignment-baseline", "baseline-shift", "letter-spacing", "word-spacing",
        "text-decoration", "writing-mode", "direction", "vector-effect", "shape-rendering",
        "text-rendering", "image-rendering", "color-interpolation", "paint-order", "overflow",
    }
)  # fmt: skip
_GEOMETRY = frozenset(
    {
        "id", "lang", "version", "width", "height", "viewBox", "preserveAspectRatio", "x", "y",
        "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "fx", "fy", "fr", "d", "points",
        "pathLength", "transform", "dx", "dy", "rotate", "textLength", "lengthAdjust",
        "gradientUnits", "gradientTransform", "spreadMethod", "offset", "patternUnits",
        "patternContentUnits", "patternTransform", "clipPathUnits", "maskUnits",
        "maskContentUnits", "refX", "refY",
    }
)  # fmt: skip
_ALLOWED_ATTRIBUTES = _PRESENTATION | _GEOMETRY
_XML_ATTRIBUTES = {f"{{{XML_NS}}}space": "xml:space", f"{{{XML_NS}}}lang": "xml:lang"}

_ID = re.compile(r"[A-Za-z_][\w.-]*\Z")
_LOCAL_HREF = re.compile(r"#([A-Za-z_][\w.-]*)\Z")
_IMAGE_DATA_URI = re.compile(r"data:image/(png|jpeg|jpg|webp);base64,([A-Za-z0-9+/=\s]+)\Z", re.IGNORECASE)
# Characters a browser may ignore inside a value ("java\tscript:") and that never matter.
_IGNORABLE = re.compile(r"[\x00-\x20\x7f-\xa0\u1680\u2000-\u200f\u2028-\u202f\u205f\u3000\ufeff]+")
_LOCAL_URL = re.compile(r"""url\((["']?)#[\w.-]+\1\)""")
_SAFE_FUNCTION = re.compile(r"\b(?:rgba?|hsla?|matrix|translate|scale|rotate|skewx|skewy)\(")
_UNSAFE_FRAGMENTS = (
    ":", "\\", "/", "<", ">", "{", "}", "@", ";", "(", "url", "javascript", "vbscript",
    "expression", "data", "import",
)  # fmt: skip


def _sanitise(data: bytes) -> tuple[bytes, ET.Element]:
    """Parse, clean and serialise an SVG; return the bytes and the cleaned tree."""
    if _sniff(data) != "svg":
        raise PictureError(f"The file is not an SVG picture; {_ACCEPTED}.")
    source = _parse_svg(data)
    root = _copy_element(source, is_root=True)
    if root is None:  # pragma: no cover - the root is always an allowed <svg>
        raise PictureError(f"The file is not an SVG picture; {_ACCEPTED}.")
    ids = _index_ids(root)
    if not _has_drawable(root, ids):
        raise PictureError(
            "The SVG has no drawable content left after removing unsafe parts; upload an SVG "
            "drawn with plain shapes, paths or text."
        )
    _check_use_expansion(root, ids)
    clean: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    _check_byte_size(len(clean))
    return clean, root


def _parse_svg(data: bytes) -> ET.Element:
    """Parse with defusedxml, enforcing the complexity limits while streaming."""
    root: ET.Element | None = None
    count = 0
    depth = 0
    events: Iterator[tuple[str, Any]] = _defused_iterparse(
        io.BytesIO(data), events=("start", "end"), forbid_dtd=True
    )
    try:
        for event, element in events:
            if event == "end":
                depth -= 1
                continue
            count += 1
            depth += 1
            if root is None:
                root = element
                _check_root(element.tag)
            if count > MAX_ELEMENTS:
                raise PictureError(
                    f"The SVG has more than {MAX_ELEMENTS:,} elements; simplify it (for example "
                    "by combining paths) and upload it again."
                )
            if depth > MAX_DEPTH:
                raise PictureError(
                    f"The SVG nests elements more than {MAX_DEPTH} levels deep; flatten or "
                    "ungroup it and upload it again."
                )
    except PictureError:
        raise
    except DTDForbidden as error:
        raise PictureError(
            "The SVG contains a DOCTYPE declaration, which is not allowed for security "
            "reasons; export it again as plain SVG without a DOCTYPE and upload the new file."
        ) from error
    except (EntitiesForbidden, ExternalReferenceForbidden) as error:
        raise PictureError(
            "The SVG declares entities or external references, which are not allowed for "
            "security reasons; export it again as plain SVG and upload the new file."
        ) from error
    except ET.ParseError as error:
        line, column = getattr(error, "position", (0, 0))
        raise PictureError(
            f"The SVG is not well-formed XML (problem at line {line}, column {column}); "
            "export it again from your drawing program and upload the new file."
        ) from error
    except (DefusedXmlException, ValueError, LookupError) as error:
        raise PictureError(
            "The SVG could not be read safely; export it again as plain SVG and upload the new file."
        ) from error
    if root is None:  # pragma: no cover - a well-formed document has a root
        raise PictureError(f"The file is not an SVG picture; {_ACCEPTED}.")
    return root


def _check_root(tag: str) -> None:
    if tag == f"{{{SVG_NS}}}svg":
        return
    if tag == "svg" or tag.endswith("}svg"):
        raise PictureError(
            f'The SVG is missing its namespace; add xmlns="{SVG_NS}" to the <svg> element '
            "(or export it again as plain SVG) and upload it again."
        )
    local = tag.rpartition("}")[2]
    raise PictureError(
        f"The file is an XML document whose main element is <{local}>, not an SVG picture; {_ACCEPTED}."
    )


def _svg_local_name(tag: object) -> str | None:
    if not isinstance(tag, str) or not tag.startswith(f"{{{SVG_NS}}}"):
        return None  # comments, processing instructions, foreign namespaces
    return tag[len(SVG_NS) + 2 :]


def _copy_element(source: ET.Element, *, is_root: bool = False) -> ET.Element | None:
    """Build a clean copy of ``source`` from allowed parts only, or None to drop it."""
    name = _svg_local_name(source.tag)
    if name is None:
        return None
    name = _RENAMED_ELEMENTS.get(name, name)
    if name not in _ALLOWED_ELEMENTS:
        return None
    attributes = _clean_attributes(name, source.attrib)
    if name in ("use", "image") and "href" not in attributes:
        return None
    if is_root:
        attributes = {"xmlns": SVG_NS, **attributes}
    copy = ET.Element(name, attributes)
    if name in _TEXT_ELEMENTS:
        copy.text = _clean_text(source.text)
    keep_tails = name in _TEXT_CONTAINERS
    previous: ET.Element | None = None
    for child in source:
        tail = _clean_text(child.tail) if keep_tails else None
        child_copy = _copy_element(child)
        if child_copy is not None:
            child_copy.tail = tail
            copy.append(child_copy)
            previous = child_copy
        elif tail:  # keep the text that followed a dropped element
            if previous is not None:
                previous.tail = (previous.tail or "") + tail
            else:
                copy.text = (copy.text or "") + tail
    return copy


def _clean_text(text: str | None) -> str | None:
    # A raw carriage return would be turned into a line feed on the next parse.
    return text.replace("\r", "\n") if text else None


def _clean_attributes(element: str, attributes: Mapping[str, str]) -> dict[str, str]:
    clean: dict[str, str] = {}
    href: str | None = None
    xlink_href: str | None = None
    for name, value in attributes.items():
        if name == "href":
            href = value
        elif name == f"{{{XLINK_NS}}}href":
            xlink_href = value
        elif name in _XML_ATTRIBUTES:
            if _is_safe_value(value):
                clean[_XML_ATTRIBUTES[name]] = value
        elif name == "style":
            style = _clean_style(value)
            if style:
                clean["style"] = style
        elif name == "id":
            if _ID.match(value):
                clean["id"] = value
        elif name in _ALLOWED_ATTRIBUTES and _is_safe_value(value):
            clean[name] = value
    # SVG 2: a plain href wins over xlink:href. Output always uses the plain form.
    reference = href if href is not None else xlink_href
    if reference is not None:
        if element in _LOCAL_HREF_ELEMENTS:
            local = _LOCAL_HREF.match(reference.strip())
            if local:
                clean["href"] = "#" + local.group(1)
        elif element == "image":
            embedded = _clean_image_uri(reference)
            if embedded:
                clean["href"] = embedded
    return clean


def _is_safe_value(value: str) -> bool:
    """Allow plain values plus local url(#id) and colour/transform functions only."""
    compact = _IGNORABLE.sub("", value).lower()
    compact = _LOCAL_URL.sub("", compact)
    compact = _SAFE_FUNCTION.sub("", compact)
    return not any(fragment in compact for fragment in _UNSAFE_FRAGMENTS)


def _clean_style(style: str) -> str:
    declarations: list[str] = []
    for declaration in style.split(";"):
        prop, colon, value = declaration.partition(":")
        prop = prop.strip().lower()
        value = value.strip()
        if colon and value and prop in _PRESENTATION and _is_safe_value(value):
            declarations.append(f"{prop}:{value}")
    return ";".join(declarations)


def _clean_image_uri(uri: str) -> str | None:
    """Keep an embedded PNG, JPEG or WebP that really is one; drop anything else."""
    match = _IMAGE_DATA_URI.match(uri.strip())
    if match is None:
        return None
    try:
        payload = base64.b64decode(re.sub(r"\s+", "", match.group(2)), validate=True)
    except (binascii.Error, ValueError):
        return None
    fmt = _sniff(payload)
    if fmt not in _PILLOW_FORMATS:
        return None
    try:
        _inspect_raster(payload, fmt, min_side=1)
    except PictureError:
        return None
    return f"data:{_CONTENT_TYPES[fmt]};base64,{base64.b64encode(payload).decode('ascii')}"


def _index_ids(root: ET.Element) -> dict[str, ET.Element]:
    ids: dict[str, ET.Element] = {}
    for element in root.iter():
        identifier = element.get("id")
        if identifier is not None and identifier not in ids:
            ids[identifier] = element
    return ids


def _use_target(element: ET.Element, ids: Mapping[str, ET.Element]) -> ET.Element | None:
    if element.tag != "use":
        return None
    href = element.get("href", "")
    return ids.get(href[1:]) if href.startswith("#") else None


def _draws(element: ET.Element, ids: Mapping[str, ET.Element]) -> bool:
    tag = element.tag
    if tag == "text":
        return bool("".join(element.itertext()).strip())
    if tag == "use":
        return _use_target(element, ids) is not None
    required = {
        "path": ("d",),
        "polyline": ("points",),
        "polygon": ("points",),
        "rect": ("width", "height"),
        "circle": ("r",),
        "image": ("href",),
    }.get(tag)
    if required is not None:
        return all(element.get(name, "").strip() for name in required)
    if tag == "ellipse":
        return any(element.get(name, "").strip() for name in ("rx", "ry"))
    if tag == "line":
        return any(element.get(name, "").strip() for name in ("x1", "y1", "x2", "y2"))
    return False


def _has_drawable(root: ET.Element, ids: Mapping[str, ET.Element]) -> bool:
    stack = [root]
    while stack:
        element = stack.pop()
        if element.tag in _NOT_RENDERED:
            continue
        if _draws(element, ids):
            return True
        stack.extend(element)
    return False


def _check_use_expansion(root: ET.Element, ids: Mapping[str, ET.Element]) -> None:
    """Refuse <use> cycles and documents that expand to too many drawn elements."""
    limit = MAX_RENDERED_ELEMENTS

    def edges(element: ET.Element) -> list[ET.Element]:
        target = _use_target(element, ids)
        return [*element, target] if target is not None else list(element)

    sizes: dict[int, int] = {}
    in_progress: set[int] = {id(root)}
    stack: list[tuple[ET.Element, list[ET.Element], Iterator[ET.Element]]] = []
    root_edges = edges(root)
    stack.append((root, root_edges, iter(root_edges)))
    while stack:
        element, children, pending = stack[-1]
        child = next(pending, None)
        if child is None:
            stack.pop()
            in_progress.discard(id(element))
            sizes[id(element)] = min(limit + 1, 1 + sum(sizes[id(c)] for c in children))
        elif id(child) in in_progress:
            raise PictureError(
                "The SVG has a <use> element that refers to itself or to a group containing "
                "it; remove that reference and upload it again."
            )
        elif id(child) not in sizes:
            in_progress.add(id(child))
            child_edges = edges(child)
            stack.append((child, child_edges, iter(child_edges)))
    if sizes[id(root)] > limit:
        raise PictureError(
            "The SVG repeats its shapes too many times through <use> elements; simplify it "
            "and upload it again."
        )


_LENGTH = re.compile(r"\s*\+?((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(px|pt|pc|mm|cm|in)?\s*\Z")
_UNITS = {None: 1.0, "px": 1.0, "pt": 96 / 72, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54,
          "in": 96.0}  # fmt: skip


def _length(value: str | None) -> float | None:
    if value is None:
        return None
    match = _LENGTH.match(value)
    if match is None:
        return None
    length = float(match.group(1)) * _UNITS[match.group(2)]
    return length if math.isfinite(length) and length > 0 else None


def _view_box(value: str | None) -> tuple[float, float] | None:
    if value is None:
        return None
    parts = [part for part in re.split(r"[\s,]+", value.strip()) if part]
    if len(parts) != 4:
        return None
    try:
        width, height = float(parts[2]), float(parts[3])
    except ValueError:
        return None
    if not (math.isfinite(width) and math.isfinite(height) and width > 0 and height > 0):
        return None
    return width, height


def _pixels(value: float | None) -> int | None:
    return None if value is None else max(1, round(value))


def _svg_dimensions(root: ET.Element) -> tuple[int | None, int | None]:
    width = _length(root.get("width"))
    height = _length(root.get("height"))
    box = _view_box(root.get("viewBox"))
    if box is not None and (width is None or height is None):
        box_width, box_height = box
        if width is None and height is None:
            width, height = box_width, box_height
        elif width is None and height is not None:
            width = height * box_width / box_height
        elif width is not None:
            height = width * box_height / box_width
    return _pixels(width), _pixels(height)
