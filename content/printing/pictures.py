"""Symbol pictures prepared once per print, at print resolution.

A picture on many cards drawn as SVG is re-drawn by WeasyPrint at every placement
(WeasyPrint issue #1978), and a PNG is decoded and re-compressed by WeasyPrint for
every document that uses it.  So every picture is turned once into a JPEG at the
largest size it prints (300 dpi), which WeasyPrint embeds as it is (DCTDecode) and
draws as one image object however often it appears.

The prepared JPEG is a white square centred on the picture whose inscribed circle
holds everything that is not background (transparent or white): the renderer draws
it clipped to the placement's bounding circle (``content.decks.layout``: pictures
live in non-overlapping circles), so round emblems fill their circle and square
artwork is shrunk until its corners fit.

The game card back's miniature (the picture in its circle beside the symbol's
period fields) is one small PNG per symbol, for the same reason: one image per row.

SVG needs a rasteriser: CairoSVG when it is installed (Kozea's, from the WeasyPrint
authors), given a fetcher that serves nothing but pictures embedded as data: URIs.
Without it SVG pictures are drawn as vectors (slower, same look, shrunk to fit their
circle).  File names are content hashes, so a cache folder shared by prints stays
right.  Free of Django: this runs in the rendering workers.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import io
import math
import os
import sys
from dataclasses import dataclass
from typing import Literal

from PIL import Image, ImageChops, ImageDraw, ImageOps

try:  # optional: the fast path for SVG pictures
    from cairosvg import parser as svg_parser  # type: ignore[import-untyped]
    from cairosvg import surface as svg_surface  # type: ignore[import-untyped]
except (ImportError, OSError):  # OSError: cairocffi without libcairo
    svg_parser = svg_surface = None

__all__ = [
    "DPI",
    "legend_strip",
    "mini_ratio",
    "miniature",
    "PictureJob",
    "PreparedPicture",
    "can_rasterise_svg",
    "picture_format",
    "predict",
    "prepare_picture",
    "prepare_pictures",
]

#: Print resolution of the prepared pictures.
DPI = 300
#: Bump when the prepared output changes, so cached files are not reused.
VERSION = "2"
_JPEG_QUALITY = 88
_SCAN_SIDE = 96  # the picture is scanned for its content circle at this size
_EMPTY_SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"></svg>'

Kind = Literal["raster", "original", "missing"]


@dataclass(frozen=True)
class PictureJob:
    """Prepare ``path`` (format ``fmt``) so that its circle is ``px`` pixels across.

    With ``strip`` (the symbol's chronological fields, see :func:`miniature`) a game-card
    back miniature ``mini_px`` pixels high is made too.
    """

    key: str
    path: str
    fmt: str
    px: int
    out_dir: str
    strip: tuple[str, ...] | None = None
    mini_px: int = 0


@dataclass(frozen=True)
class PreparedPicture:
    """What to draw: ``path`` of the file, and how.

    ``raster``: the prepared JPEG, drawn at the circle's full size and clipped to it.
    ``original``: the original file (an SVG and no rasteriser), drawn as it is in the
    square inscribed in the circle.
    ``missing``: no picture (``message`` says why); an empty circle is drawn.
    """

    key: str
    kind: Kind
    path: str = ""
    message: str = ""
    mini: str = ""  # the miniature with its chronological fields (PNG), when asked for


def can_rasterise_svg() -> bool:
    return svg_surface is not None


def picture_format(path: str, declared: str = "") -> str:
    """``png``, ``jpeg``, ``webp`` or ``svg``: the declared format, else the file name's."""
    fmt = (declared or os.path.splitext(path)[1].lstrip(".")).lower()
    return {"jpg": "jpeg", "svgz": "svg"}.get(fmt, fmt)


def _refuse_external(url: str, resource_type: str) -> bytes:
    """CairoSVG's fetcher: pictures embedded as data: URIs, nothing else."""
    if url.startswith("data:image/") and ";base64," in url[:64]:
        return base64.b64decode(url.split(",", 1)[1])
    return _EMPTY_SVG


def _flatten(image: Image.Image) -> Image.Image:
    """The picture on white (the cards are white), as RGB."""
    if image.mode == "RGB":
        return image
    image = image.convert("RGBA")
    flat = Image.new("RGB", image.size, "white")
    flat.paste(image, mask=image.getchannel("A"))
    return flat


def _draw_svg(tree: object, width: int) -> Image.Image:
    """Draw a parsed SVG ``width`` pixels wide (keeping its aspect ratio), on white."""
    assert svg_surface is not None
    surface = svg_surface.PNGSurface(tree, None, 96, output_width=max(1, width))
    image_surface = surface.cairo
    image_surface.flush()
    size = (image_surface.get_width(), image_surface.get_height())
    # Cairo's ARGB32 is premultiplied BGRA in memory on little-endian machines.
    rawmode = "BGRa" if sys.byteorder == "little" else "aRGB"
    raw = bytes(image_surface.get_data())
    return _flatten(Image.frombuffer("RGBA", size, raw, "raw", rawmode, image_surface.get_stride(), 1))


def _svg_square(data: bytes, px: int) -> Image.Image:
    """Draw the SVG once small to find its content circle, then once at the scale that
    makes that circle ``px`` pixels across (no resampling)."""
    assert svg_parser is not None
    tree = svg_parser.Tree(bytestring=data, unsafe=False, url_fetcher=_refuse_external)
    probe = _draw_svg(tree, _SCAN_SIDE)
    radius = _content_radius(probe) / probe.width  # in widths of the picture
    image = _draw_svg(tree, math.ceil(px / (2 * radius)))
    return _square(image, px)


def _raster_square(data: bytes, px: int) -> Image.Image:
    with Image.open(io.BytesIO(data)) as opened:
        opened.draft("RGB", (px * 2, px * 2))  # JPEG: decode at a reduced scale when it can
        image = _flatten(ImageOps.exif_transpose(opened))
    radius = _content_radius(image)
    scale = px / (2 * radius)
    if scale < 1:  # never enlarge: a small picture stays as sharp as it is
        image = image.resize(
            (max(1, round(image.width * scale)), max(1, round(image.height * scale))),
            Image.Resampling.LANCZOS,
            reducing_gap=2.0,
        )
        radius *= scale
    return _square(image, max(2, math.ceil(2 * radius)))


def _square(image: Image.Image, side: int) -> Image.Image:
    """A white ``side`` square with ``image`` centred (cropped where it is only background)."""
    square = Image.new("RGB", (side, side), "white")
    square.paste(image, ((side - image.width) // 2, (side - image.height) // 2))
    return square


@functools.lru_cache(maxsize=64)
def _distances(sw: int, sh: int, width: int, height: int) -> tuple[Image.Image, float]:
    """For a ``sw`` × ``sh`` scan of a ``width`` × ``height`` picture: an L image whose
    pixels hold the distance of their far corner from the centre, scaled to 0–255."""
    fx, fy = width / sw, height / sh
    cx, cy = width / 2, height / 2
    far = []
    for y in range(sh):
        dy = max(abs(y * fy - cy), abs((y + 1) * fy - cy))
        for x in range(sw):
            dx = max(abs(x * fx - cx), abs((x + 1) * fx - cx))
            far.append(math.sqrt(dx * dx + dy * dy))
    top = max(far) or 1.0
    image = Image.new("L", (sw, sh))
    image.putdata([min(255, math.ceil(v / top * 255)) for v in far])
    return image, top


def _content_radius(flat: Image.Image) -> float:
    """Distance from the centre to the farthest non-white pixel, in pixels of ``flat``."""
    width, height = flat.size
    ink = ImageChops.difference(flat, Image.new("RGB", flat.size, "white")).convert("L")
    if ink.getbbox() is None:
        return 1.0
    factor = max(1.0, max(width, height) / _SCAN_SIDE)
    sw, sh = max(1, math.ceil(width / factor)), max(1, math.ceil(height / factor))
    # BOX keeps any ink in a cell; the threshold drops JPEG noise around white.
    mask = ink.resize((sw, sh), Image.Resampling.BOX).point(lambda v: 255 if v > 6 else 0)
    distances, top = _distances(sw, sh, width, height)
    low_high = ImageChops.multiply(mask, distances).getextrema()
    reach = float(low_high[1])  # type: ignore[arg-type]  # an L image: (min, max) numbers
    return max(1.0, reach / 255 * top)


#: Miniature geometry, as fractions of its height: the picture's circle, a gap, then a
#: vertical strip of period fields (filled where the symbol belongs, outlined if not).
MINI_GAP = 0.08
FIELD_GAP = 0.06


def field_size(count: int) -> float:
    """Height of one period field, as a fraction of the miniature's height."""
    return (1 - FIELD_GAP * max(0, count - 1)) / max(1, count)


def mini_ratio(count: int) -> float:
    """Width ÷ height of a miniature with ``count`` period fields."""
    return 1 + (MINI_GAP + field_size(count) if count else 0)


def _fields(draw: ImageDraw.ImageDraw, x: int, height: int, fills: tuple[str, ...]) -> None:
    count = len(fills)
    field = field_size(count) * height
    gap = FIELD_GAP * height
    line = max(1, round(height / 40))
    for i, fill in enumerate(fills):
        y0 = round(i * (field + gap))
        box = (x, y0, x + round(field) - 1, round(y0 + field) - 1)
        if fill:
            draw.rectangle(box, fill=fill)
        else:
            draw.rectangle(box, outline="#8a8a8a", width=line)


@functools.lru_cache(maxsize=8)
def _circle_mask(side: int) -> Image.Image:
    """A smooth-edged disc ``side`` pixels across (drawn four times larger, then reduced);
    every miniature of a print has the same."""
    mask = Image.new("L", (side * 4, side * 4), 0)
    ImageDraw.Draw(mask).ellipse((0, 0, side * 4 - 1, side * 4 - 1), fill=255)
    return mask.resize((side, side), Image.Resampling.LANCZOS)


def miniature(square: Image.Image | None, fills: tuple[str, ...], height: int) -> Image.Image:
    """The game-card back's miniature: the picture in its circle, then the period fields
    (so the marking is told by fill and position, not by colour alone)."""
    width = round(height * mini_ratio(len(fills)))
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    if square is not None:
        picture = square.resize((height, height), Image.Resampling.LANCZOS, reducing_gap=2.0)
        image.paste(picture, (0, 0), _circle_mask(height))
    else:
        draw.ellipse((1, 1, height - 2, height - 2), outline="#b0b0b0", width=max(1, round(height / 40)))
    if fills:
        _fields(draw, round(height * (1 + MINI_GAP)), height, fills)
    return image


def legend_strip(fills: tuple[str, ...], height: int) -> Image.Image:
    """The period fields alone, all filled, for the legend beside their names."""
    field = field_size(len(fills))
    image = Image.new("RGB", (max(1, round(height * field)), height), "white")
    _fields(ImageDraw.Draw(image), 0, height, fills)
    return image


def _cache_name(data: bytes, job: PictureJob) -> str:
    h = hashlib.sha256(data)
    h.update(f"|{job.fmt}|{job.px}|{VERSION}|{svg_surface is not None}".encode())
    return h.hexdigest()[:40] + ".jpg"


def _save(image: Image.Image, out: str, fmt: str) -> None:
    tmp = f"{out}.{os.getpid()}.tmp"
    if fmt == "JPEG":
        image.save(tmp, "JPEG", quality=_JPEG_QUALITY, optimize=False)
    else:
        image.save(tmp, fmt)
    os.replace(tmp, out)  # atomic: a shared cache never holds half a file


def _mini_path(job: PictureJob, prepared: PreparedPicture) -> str:
    tag = hashlib.sha256(f"{prepared.path}|{prepared.kind}|{job.strip}|{job.mini_px}|{VERSION}".encode())
    return os.path.join(job.out_dir, f"mini-{tag.hexdigest()[:40]}.png")


def _with_mini(job: PictureJob, prepared: PreparedPicture, square: Image.Image | None) -> PreparedPicture:
    if job.strip is None or job.mini_px <= 0:
        return prepared
    out = _mini_path(job, prepared)
    if not os.path.exists(out):
        if square is None and prepared.kind == "raster":
            with Image.open(prepared.path) as opened:
                square = opened.convert("RGB")
        _save(miniature(square, job.strip, job.mini_px), out, "PNG")
    return PreparedPicture(prepared.key, prepared.kind, prepared.path, prepared.message, mini=out)


def predict(job: PictureJob) -> PreparedPicture:
    """What :func:`prepare_picture` will return when the picture is fine (file names are
    content hashes), so the HTML can be written while the pictures are prepared."""
    try:
        with open(job.path, "rb") as handle:
            data = handle.read()
    except (OSError, ValueError):
        data = None
    fmt = job.fmt or picture_format(job.path)
    if data is None:
        prepared = PreparedPicture(job.key, "missing")
    elif fmt == "svg" and svg_surface is None:
        prepared = PreparedPicture(job.key, "original", path=job.path)
    else:
        prepared = PreparedPicture(job.key, "raster", path=os.path.join(job.out_dir, _cache_name(data, job)))
    if job.strip is not None and job.mini_px > 0:
        prepared = PreparedPicture(prepared.key, prepared.kind, prepared.path, mini=_mini_path(job, prepared))
    return prepared


def prepare_picture(job: PictureJob) -> PreparedPicture:
    """Prepare one picture (see the module docstring); never raises for a bad picture."""
    if not job.path:
        return _with_mini(job, PreparedPicture(job.key, "missing", message="no picture"), None)
    try:
        with open(job.path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        missing = PreparedPicture(job.key, "missing", message=f"cannot read the picture: {error.strerror}")
        return _with_mini(job, missing, None)
    fmt = job.fmt or picture_format(job.path)
    if fmt == "svg" and svg_surface is None:
        return _with_mini(job, PreparedPicture(job.key, "original", path=job.path), None)
    out = os.path.join(job.out_dir, _cache_name(data, job))
    if os.path.exists(out):
        return _with_mini(job, PreparedPicture(job.key, "raster", path=out), None)
    try:
        square = _svg_square(data, job.px) if fmt == "svg" else _raster_square(data, job.px)
    except Exception as error:  # a broken picture must not stop the whole print
        if fmt == "svg":
            fallback = PreparedPicture(job.key, "original", path=job.path, message=f"not rasterised: {error}")
        else:
            fallback = PreparedPicture(job.key, "missing", message=f"unreadable picture: {error}")
        return _with_mini(job, fallback, None)
    _save(square, out, "JPEG")
    return _with_mini(job, PreparedPicture(job.key, "raster", path=out), square)


def prepare_pictures(jobs: list[PictureJob]) -> list[PreparedPicture]:
    return [prepare_picture(job) for job in jobs]
