"""Tests for content.pictures: validation of uploaded symbol pictures.

Every fixture is generated in code (Pillow for raster pictures, strings for SVG).
"""

from __future__ import annotations

import ast
import base64
import gzip
import io
import random
import struct
import warnings
import zipfile
import zlib
from pathlib import Path
from xml.etree import ElementTree as ET

import defusedxml.ElementTree as DefusedET
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from content.pictures import (
    ALLOWED_FORMATS,
    MAX_BYTES,
    MAX_DEPTH,
    MAX_ELEMENTS,
    MAX_SIDE,
    MIN_SIDE,
    Picture,
    PictureError,
    check_picture,
    raster_for_players,
    sanitise_svg,
)
from tests.content import telling_pictures

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
ACCEPTED = "upload a png, jpeg, webp or svg picture"
BENIGN = '<rect id="benign" x="1" y="1" width="30" height="20" fill="green"/>'
FORBIDDEN = (
    "script", "onload", "javascript", "http:", "file:", "foreignobject", "entity", "@import",
)  # fmt: skip


# ---------------------------------------------------------------------------
# Fixture builders
# ---------------------------------------------------------------------------


def noise(size: tuple[int, int], mode: str = "RGB") -> Image.Image:
    """A deterministic noisy picture, so that compressed data is not trivially small."""
    width, height = size
    rng = random.Random(f"{size}{mode}")
    grey = Image.frombytes("L", size, rng.randbytes(width * height))
    return grey.convert(mode)


def encode(image: Image.Image, fmt: str, **options: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def raster(fmt: str, size: tuple[int, int] = (120, 80), mode: str = "RGB") -> bytes:
    return encode(noise(size, mode), fmt)


def png_claiming(width: int, height: int) -> bytes:
    """A valid small PNG whose IHDR header is rewritten to claim another size."""
    png = raster("PNG", (64, 64), "L")
    assert png[12:16] == b"IHDR"
    header = struct.pack(">II", width, height) + png[24:29]
    crc = struct.pack(">I", zlib.crc32(b"IHDR" + header))
    return png[:16] + header + crc + png[33:]


def animated(fmt: str) -> bytes:
    frames = [Image.new("RGB", (80, 80), colour) for colour in ("red", "green", "blue")]
    return encode(frames[0], fmt, save_all=True, append_images=frames[1:], duration=100, loop=0)


def svg(body: str, root_attributes: str = "", prologue: str = "") -> bytes:
    return (
        f'{prologue}<svg xmlns="{SVG_NS}" xmlns:xlink="{XLINK_NS}" '
        f'width="100" height="100" {root_attributes}>{BENIGN}{body}</svg>'
    ).encode()


def refusal(data: bytes, filename: str = "") -> str:
    """Check that the picture is refused with a one-sentence message; return it."""
    with pytest.raises(PictureError) as caught:
        check_picture(data, filename)
    message = str(caught.value)
    assert message.endswith("."), message
    assert ". " not in message and "\n" not in message, f"not one sentence: {message}"
    return message


def svg_refusal(data: bytes) -> str:
    message = refusal(data)
    with pytest.raises(PictureError):
        sanitise_svg(data)
    return message


def parse(output: bytes) -> ET.Element:
    """Parse sanitiser output safely, as a consumer would."""
    root: ET.Element = DefusedET.fromstring(output, forbid_dtd=True)
    return root


def assert_harmless(output: bytes) -> None:
    # The SVG namespace URI itself must stay: without it the picture does not render.
    text = output.decode("utf-8").replace(f'xmlns="{SVG_NS}"', "", 1).lower()
    for word in FORBIDDEN:
        assert word.lower() not in text, f"{word!r} survived in {output!r}"


def find_benign(root: ET.Element) -> ET.Element:
    found = [el for el in root.iter(f"{{{SVG_NS}}}rect") if el.get("id") == "benign"]
    assert len(found) == 1, "the benign shape did not survive"
    return found[0]


# ---------------------------------------------------------------------------
# The module
# ---------------------------------------------------------------------------


def test_module_imports_nothing_from_django() -> None:
    source = Path(__file__).resolve().parents[2] / "content" / "pictures.py"
    tree = ast.parse(source.read_text(encoding="utf-8"))
    imported: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.append(node.module or "")
    assert imported and not [name for name in imported if name.split(".")[0] == "django"]


def test_allowed_formats_are_png_jpeg_webp_svg() -> None:
    assert ALLOWED_FORMATS == ("png", "jpeg", "webp", "svg")


# ---------------------------------------------------------------------------
# Raster pictures
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pillow_format", "fmt", "extension", "content_type"),
    [
        ("PNG", "png", ".png", "image/png"),
        ("JPEG", "jpeg", ".jpg", "image/jpeg"),
        ("WEBP", "webp", ".webp", "image/webp"),
    ],
)
def test_accepted_raster_formats_report_format_and_dimensions(
    pillow_format: str, fmt: str, extension: str, content_type: str
) -> None:
    data = raster(pillow_format, (320, 200))
    picture = check_picture(data, f"symbol{extension}")
    assert picture == Picture(data, fmt, extension, 320, 200, content_type)  # original bytes


@pytest.mark.parametrize("mode", ["L", "RGBA", "P", "LA", "1"])
def test_png_in_any_colour_mode_is_accepted(mode: str) -> None:
    picture = check_picture(raster("PNG", (100, 90), mode))
    assert (picture.format, picture.width, picture.height) == ("png", 100, 90)


def test_cmyk_jpeg_is_accepted() -> None:
    picture = check_picture(raster("JPEG", (100, 90), "CMYK"))
    assert (picture.format, picture.width, picture.height) == ("jpeg", 100, 90)


def test_multi_picture_jpeg_from_a_camera_is_accepted_not_treated_as_animation() -> None:
    frames = [noise((100, 100)), Image.new("RGB", (100, 100), "blue")]
    data = encode(frames[0], "MPO", save_all=True, append_images=frames[1:])
    picture = check_picture(data, "photo.jpg")
    assert (picture.format, picture.extension, picture.width) == ("jpeg", ".jpg", 100)


def test_format_comes_from_content_when_filename_extension_contradicts_it() -> None:
    data = raster("PNG")
    picture = check_picture(data, "holiday.jpg")
    assert (picture.format, picture.extension, picture.content_type) == (
        "png",
        ".png",
        "image/png",
    )


def test_filename_claiming_an_allowed_format_does_not_make_a_gif_acceptable() -> None:
    message = refusal(encode(noise((80, 80), "P"), "GIF"), "symbol.png")
    assert '"symbol.png"' in message and "GIF" in message


@pytest.mark.parametrize(
    ("kind", "data", "named"),
    [
        ("gif", encode(noise((80, 80), "P"), "GIF"), "GIF"),
        ("bmp", encode(noise((80, 80)), "BMP"), "BMP"),
        ("tiff", encode(noise((80, 80)), "TIFF"), "TIFF"),
        ("pdf", encode(noise((80, 80)), "PDF"), "PDF"),
        ("ico", encode(noise((64, 64)), "ICO"), "ICO"),
        ("html", b"<!DOCTYPE html><html><body><p>Hello</p></body></html>", "HTML"),
        ("html_no_doctype", b"  <html><body>hi</body></html>", "HTML"),
        ("xml", b'<?xml version="1.0"?><note><to>you</to></note>', "XML"),
        ("text", b"just some words, not a picture\n", "text"),
        ("binary", bytes(range(256)) * 4, None),
        ("gzip_svgz", gzip.compress(svg("")), "compressed"),
    ],
)
def test_unknown_formats_are_refused_naming_accepted_formats(
    kind: str, data: bytes, named: str | None
) -> None:
    message = refusal(data)
    assert ACCEPTED in message.lower()
    if named is not None:
        assert named in message


def test_zip_archive_is_refused_naming_accepted_formats() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("picture.png", raster("PNG"))
    message = refusal(buffer.getvalue(), "pictures.zip")
    assert ACCEPTED in message.lower() and "ZIP" in message


def test_empty_file_is_refused_naming_accepted_formats() -> None:
    message = refusal(b"", "symbol.png")
    assert "empty" in message and ACCEPTED in message.lower()


def test_oversized_bytes_are_refused_with_the_limit_in_the_message() -> None:
    data = b"\x89PNG\r\n\x1a\n" + b"\0" * int(7.2 * 1024 * 1024)
    message = refusal(data)
    assert message.startswith("The picture is 7.2 MB; the limit is 5 MB")


def test_oversized_by_one_byte_is_refused_and_not_shown_as_5_mb() -> None:
    message = refusal(b"\xff\xd8\xff" + b"\0" * (MAX_BYTES - 2))
    assert "5.1 MB" in message and "limit is 5 MB" in message


def test_oversized_svg_is_refused_before_parsing() -> None:
    padding = "<!--" + "x" * MAX_BYTES + "-->"
    message = svg_refusal(svg(padding))
    assert "limit is 5 MB" in message


def test_too_many_pixels_is_refused() -> None:
    data = encode(Image.new("1", (5001, 5000)), "PNG")  # 25,005,000 px, sides below 8000
    message = refusal(data)
    assert "megapixels" in message and "25" in message


@pytest.mark.parametrize("size", [(MAX_SIDE + 1, MIN_SIDE), (MIN_SIDE, MAX_SIDE + 1)])
def test_side_longer_than_max_side_is_refused(size: tuple[int, int]) -> None:
    message = refusal(encode(Image.new("1", size), "PNG"))
    assert str(MAX_SIDE) in message


@pytest.mark.parametrize("size", [(MIN_SIDE - 1, 200), (200, MIN_SIDE - 1), (16, 16)])
def test_too_small_is_refused(size: tuple[int, int]) -> None:
    message = refusal(raster("PNG", size))
    assert "too small" in message and str(MIN_SIDE) in message


def test_smallest_allowed_size_is_accepted() -> None:
    picture = check_picture(raster("WEBP", (MIN_SIDE, MIN_SIDE)))
    assert (picture.width, picture.height) == (MIN_SIDE, MIN_SIDE)


@pytest.mark.parametrize(
    "claimed",
    [
        (100_000, 100_000),  # far beyond Pillow's own limit: DecompressionBombError
        (9_500, 9_500),  # between Pillow's limit and twice it: DecompressionBombWarning
        (6_000, 6_000),  # below Pillow's limit, above ours
        (2**31 - 1, 2**31 - 1),  # the largest size a PNG header can claim
    ],
)
def test_decompression_bomb_is_refused_without_warning_or_crash(claimed: tuple[int, int]) -> None:
    limit_before = Image.MAX_IMAGE_PIXELS
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning escaping would fail the test
        refusal(png_claiming(*claimed))
    assert limit_before == Image.MAX_IMAGE_PIXELS  # the global limit is left alone


def test_decompression_bomb_is_refused_even_if_pillow_limit_is_disabled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", None)
    message = refusal(png_claiming(20_000, 20_000))
    assert "8000" in message


@pytest.mark.parametrize("pillow_format", ["PNG", "JPEG", "WEBP"])
def test_truncated_picture_is_refused_as_unreadable(pillow_format: str) -> None:
    data = raster(pillow_format, (300, 300))
    message = refusal(data[: len(data) // 2])
    assert "not a readable PNG, JPEG or WebP picture" in message


def test_png_with_corrupted_pixel_data_is_refused_as_unreadable() -> None:
    data = bytearray(raster("PNG", (300, 300)))
    start = data.index(b"IDAT") + 100
    data[start : start + 16] = bytes(16)
    assert "not a readable" in refusal(bytes(data))


def test_png_signature_followed_by_garbage_is_refused_as_unreadable() -> None:
    assert "not a readable" in refusal(b"\x89PNG\r\n\x1a\n" + b"garbage" * 50)


@pytest.mark.parametrize("pillow_format", ["PNG", "WEBP"])
def test_animated_picture_is_refused(pillow_format: str) -> None:
    message = refusal(animated(pillow_format))
    assert "animated" in message and "3 frames" in message


# ---------------------------------------------------------------------------
# SVG: accepted content
# ---------------------------------------------------------------------------

SAFE_SVG = f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- exported by a drawing program -->
<svg xmlns="{SVG_NS}" xmlns:xlink="{XLINK_NS}" viewBox="0 0 200 100" width="400">
  <title>Sun</title>
  <desc>A sun over a hill</desc>
  <defs>
    <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#8cf"/><stop offset="1" style="stop-color:#fff"/>
    </linearGradient>
    <radialGradient id="glow" xlink:href="#sky" cx="0.5" cy="0.5" r="0.5"/>
    <clipPath id="clip"><rect width="200" height="100"/></clipPath>
    <mask id="fade"><rect width="200" height="100" fill="white"/></mask>
    <pattern id="dots" width="10" height="10" patternUnits="userSpaceOnUse">
      <circle cx="5" cy="5" r="2"/>
    </pattern>
    <symbol id="ray" viewBox="0 0 10 10"><line x1="0" y1="0" x2="10" y2="10"/></symbol>
  </defs>
  <g clip-path="url(#clip)" mask="url(#fade)" transform="translate(0, 0) scale(1)">
    <rect width="200" height="100" fill="url(#sky)"/>
    <circle cx="150" cy="30" r="20" fill="url('#glow')" stroke="orange" stroke-width="2"/>
    <ellipse cx="100" cy="110" rx="120" ry="40" style="fill:#5a5;fill-opacity:0.9"/>
    <path d="M0 80 Q 100 40 200 80" fill="none" stroke="rgb(10, 20, 30)"/>
    <polyline points="0,0 10,10 20,0" fill="none" stroke="black"/>
    <polygon points="30,30 40,40 50,30" fill="url(#dots)"/>
    <use xlink:href="#ray" x="150" y="30" width="10" height="10"/>
    <text x="10" y="90" font-family="sans-serif" xml:space="preserve">Hello <tspan
        font-weight="bold">sunny</tspan> day</text>
  </g>
</svg>
""".encode()


def test_safe_svg_keeps_its_shapes_and_reparses() -> None:
    output = sanitise_svg(SAFE_SVG)
    root = parse(output)
    assert root.tag == f"{{{SVG_NS}}}svg"
    tags = {element.tag.rpartition("}")[2] for element in root.iter()}
    assert tags >= {
        "svg", "title", "desc", "defs", "linearGradient", "radialGradient", "stop", "clipPath",
        "mask", "pattern", "symbol", "g", "rect", "circle", "ellipse", "path", "polyline",
        "polygon", "use", "text", "tspan", "line",
    }  # fmt: skip
    text = next(root.iter(f"{{{SVG_NS}}}text"))
    assert "".join(text.itertext()) == "Hello sunny day"
    assert text.get("{http://www.w3.org/XML/1998/namespace}space") == "preserve"
    circle = next(el for el in root.iter(f"{{{SVG_NS}}}circle") if el.get("cx") == "150")
    assert circle.get("fill") == "url('#glow')"
    ellipse = next(root.iter(f"{{{SVG_NS}}}ellipse"))
    assert ellipse.get("style") == "fill:#5a5;fill-opacity:0.9"
    group = next(root.iter(f"{{{SVG_NS}}}g"))
    assert group.get("clip-path") == "url(#clip)"
    assert group.get("transform") == "translate(0, 0) scale(1)"


def test_xlink_href_to_a_local_id_is_kept_as_plain_href() -> None:
    root = parse(sanitise_svg(SAFE_SVG))
    use = next(root.iter(f"{{{SVG_NS}}}use"))
    assert use.get("href") == "#ray"
    assert f"{{{XLINK_NS}}}href" not in use.attrib
    gradient = next(root.iter(f"{{{SVG_NS}}}radialGradient"))
    assert gradient.get("href") == "#sky"


def test_check_picture_returns_sanitised_svg_with_dimensions() -> None:
    picture = check_picture(SAFE_SVG, "sun.png")
    assert picture.data == sanitise_svg(SAFE_SVG)
    assert (picture.format, picture.extension, picture.content_type) == (
        "svg",
        ".svg",
        "image/svg+xml",
    )
    assert (picture.width, picture.height) == (400, 200)  # width plus viewBox aspect ratio


@pytest.mark.parametrize(
    ("root_attributes", "expected"),
    [
        ('width="120" height="80"', (120, 80)),
        ('width="120px" height="80.4px"', (120, 80)),
        ('viewBox="0 0 300 150"', (300, 150)),
        ('viewBox="10,10,30,20" height="40"', (60, 40)),
        ('width="1in" height="2.54cm"', (96, 96)),
        ('width="100%" height="100%"', (None, None)),
        ('width="50"', (50, None)),
        ('viewBox="0 0 0 0"', (None, None)),
        ("", (None, None)),
    ],
)
def test_svg_dimensions_come_from_width_height_or_viewbox(
    root_attributes: str, expected: tuple[int | None, int | None]
) -> None:
    data = f'<svg xmlns="{SVG_NS}" {root_attributes}>{BENIGN}</svg>'.encode()
    picture = check_picture(data)
    assert (picture.width, picture.height) == expected


def test_svg_with_utf8_bom_and_no_xml_declaration_is_accepted() -> None:
    picture = check_picture(b"\xef\xbb\xbf\n" + svg(""))
    assert picture.format == "svg"


def test_embedded_png_data_uri_image_is_kept() -> None:
    payload = base64.b64encode(raster("PNG", (8, 8))).decode()
    data = svg(f'<image width="8" height="8" href="data:image/png;base64,{payload}"/>')
    root = parse(sanitise_svg(data))
    image = next(root.iter(f"{{{SVG_NS}}}image"))
    assert image.get("href") == f"data:image/png;base64,{payload}"


@pytest.mark.parametrize(
    "href",
    [
        "data:image/svg+xml;base64," + base64.b64encode(b"<svg><script>alert(1)</script></svg>").decode(),
        "data:image/png;base64," + base64.b64encode(b"not really a png").decode(),
        "data:image/png;base64," + base64.b64encode(png_claiming(100_000, 100_000)).decode(),
        "data:text/html;base64," + base64.b64encode(b"<script>alert(1)</script>").decode(),
        "data:image/png,rawbytes",
    ],
    ids=["svg", "fake-png", "bomb-png", "html", "not-base64"],
)
def test_embedded_image_that_is_not_a_safe_raster_is_dropped(href: str) -> None:
    output = sanitise_svg(svg(f'<image width="8" height="8" href="{href}"/>'))
    root = parse(output)
    assert list(root.iter(f"{{{SVG_NS}}}image")) == []
    assert b"data:" not in output
    find_benign(root)


# ---------------------------------------------------------------------------
# SVG: hostile content is cleaned, the benign shape survives
# ---------------------------------------------------------------------------

HOSTILE_CLEANED: dict[str, bytes] = {
    "script_element": svg("<script>alert(document.cookie)</script>"),
    "script_cdata": svg('<script type="text/javascript"><![CDATA[alert(1)]]></script>'),
    "script_in_xhtml_namespace": svg('<h:script xmlns:h="http://www.w3.org/1999/xhtml">alert(1)</h:script>'),
    "onload_on_root": svg("", root_attributes='onload="alert(1)"'),
    "onload_on_shapes": svg(
        '<circle cx="50" cy="50" r="10" onload="alert(1)" onclick="alert(2)"/>'
        '<g onmouseover="alert(3)" ONLOAD="alert(4)"><path d="M0 0L9 9" onfocus="alert(5)"/></g>'
    ),
    "javascript_href_on_a": svg(
        '<a href="javascript:alert(1)"><circle r="5"/></a>'
        '<a xlink:href="javascript:alert(2)"><text x="5" y="5">click</text></a>'
    ),
    "javascript_href_on_use": svg(
        '<use href="javascript:alert(1)"/><use xlink:href="javascript:alert(2)"/>'
        '<use href=" jav&#x09;ascript:alert(3)"/>'
    ),
    "xlink_href_to_http": svg(
        '<use xlink:href="http://evil.example/sprite.svg#icon"/>'
        '<linearGradient id="g" xlink:href="http://evil.example/g.svg#g"/>'
        '<pattern id="p" href="https://evil.example/p.svg#p" width="1" height="1"/>'
    ),
    "image_href_http": svg('<image href="http://evil.example/track.png" width="9" height="9"/>'),
    "image_href_file": svg(
        '<image href="file:///etc/passwd" width="9" height="9"/>'
        '<image xlink:href="file:///etc/shadow" width="9" height="9"/>'
    ),
    "foreign_object_with_html": svg(
        '<foreignObject width="100" height="100">'
        '<body xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script>'
        '<iframe src="http://evil.example/"></iframe><p onclick="alert(1)">hi</p></body>'
        "</foreignObject>"
    ),
    "style_element_with_import_and_url": svg(
        "<style>@import url(http://evil.example/x.css);"
        " rect { fill: url(http://evil.example/p.svg#p) }"
        " circle { background: url(javascript:alert(1)) }</style>"
    ),
    "style_element_cdata": svg(
        "<style><![CDATA[@import 'file:///etc/passwd'; * { behavior: url(x.htc) }]]></style>"
    ),
    "animate_href_to_javascript": svg(
        '<a><animate attributeName="href" to="javascript:alert(1)" begin="0s"/>'
        '<circle r="4"/></a>'
        '<animate xlink:href="#benign" attributeName="xlink:href" values="javascript:alert(2)"/>'
    ),
    "set_element": svg(
        '<set attributeName="onload" to="alert(1)"/>'
        '<set href="#benign" attributeName="href" to="javascript:alert(2)"/>'
        '<animateTransform attributeName="transform" type="scale" from="1" to="javascript:1"/>'
    ),
    "css_url_in_style_attribute": svg(
        '<circle r="3" style="fill:url(http://evil.example/x.svg#p);stroke:red"/>'
        '<rect width="1" height="1" style="background:url(\'javascript:alert(1)\')"/>'
        '<rect width="1" height="1" style="fill:u\\72l(http://evil.example/x)"/>'
        '<rect width="1" height="1" style="fill:expression(alert(1));mask:url(//evil.example/m)"/>'
        '<rect width="1" height="1" style="mask:image-set(&quot;file:///etc/passwd&quot; 1x)"/>'
        '<rect width="1" height="1" style="@import url(http://evil.example/x.css)"/>'
    ),
    "url_to_outside_in_presentation_attributes": svg(
        '<circle r="3" fill="url(http://evil.example/p.svg#p)"'
        ' mask="url(file:///etc/passwd#m)" clip-path="url(data:image/svg+xml,x)"/>'
    ),
    "xml_stylesheet_processing_instruction": svg(
        "",
        prologue='<?xml version="1.0"?><?xml-stylesheet href="http://evil.example/x.css"?>',
    ),
    "script_in_comment": svg("<!-- <script>alert(1)</script> http://evil.example -->"),
    "xinclude_of_local_file": svg(
        '<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="file:///etc/passwd" parse="text"/>'
    ),
    "svg_tiny_handler_and_listener": svg(
        '<handler type="application/ecmascript">alert(1)</handler><listener event="load" handler="#h"/>'
    ),
    "filters_and_text_paths_with_external_references": svg(
        '<filter id="f"><feImage href="http://evil.example/x.png"/></filter>'
        '<textPath href="http://evil.example/p.svg#p">x</textPath>'
        '<tref xlink:href="http://evil.example/t.svg#t"/>'
    ),
    "iframe_embed_and_object_in_svg_namespace": svg(
        '<iframe src="http://evil.example/"/><embed src="file:///etc/passwd"/>'
        '<object data="javascript:alert(1)"/>'
    ),
    "javascript_hidden_in_attribute_values": svg(
        '<circle r="3" fill="java&#9;script:alert(1)" stroke="vbscript:x" id="javascript:x"/>'
    ),
}


@pytest.mark.parametrize("data", HOSTILE_CLEANED.values(), ids=HOSTILE_CLEANED.keys())
def test_hostile_svg_is_cleaned_and_benign_shape_survives(data: bytes) -> None:
    output = sanitise_svg(data)
    assert_harmless(output)
    root = parse(output)
    assert root.tag == f"{{{SVG_NS}}}svg"
    benign = find_benign(root)
    assert (benign.get("width"), benign.get("height"), benign.get("fill")) == ("30", "20", "green")
    assert check_picture(data).data == output


def test_css_url_in_style_attribute_keeps_the_safe_declarations() -> None:
    output = sanitise_svg(svg('<circle r="3" style="fill:url(http://evil.example/x);stroke:red"/>'))
    circle = next(parse(output).iter(f"{{{SVG_NS}}}circle"))
    assert circle.get("style") == "stroke:red"


def test_link_content_is_kept_without_the_link() -> None:
    output = sanitise_svg(svg('<a href="javascript:alert(1)"><circle id="c" r="5"/></a>'))
    root = parse(output)
    circle = next(root.iter(f"{{{SVG_NS}}}circle"))
    assert circle.get("id") == "c"
    assert list(root.iter(f"{{{SVG_NS}}}a")) == []


def test_text_following_a_dropped_element_is_kept() -> None:
    output = sanitise_svg(svg('<text x="1" y="9">before<script>alert(1)</script> after</text>'))
    text = next(parse(output).iter(f"{{{SVG_NS}}}text"))
    assert "".join(text.itertext()) == "before after"


# ---------------------------------------------------------------------------
# SVG: refused outright
# ---------------------------------------------------------------------------

XXE = f"""<?xml version="1.0"?>
<!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<svg xmlns="{SVG_NS}">{BENIGN}<text>&xxe;</text></svg>""".encode()

BILLION_LAUGHS = (
    '<?xml version="1.0"?>\n<!DOCTYPE svg [\n<!ENTITY lol "lol">\n'
    + "".join(
        f'<!ENTITY lol{n} "{("&lol" + (str(n - 1) if n > 1 else "") + ";") * 10}">\n' for n in range(1, 10)
    )
    + f']>\n<svg xmlns="{SVG_NS}">{BENIGN}<text>&lol9;</text></svg>'
).encode()

DOCTYPES: dict[str, bytes] = {
    "xxe": XXE,
    "billion_laughs": BILLION_LAUGHS,
    "external_dtd": (
        f'<!DOCTYPE svg SYSTEM "http://evil.example/x.dtd"><svg xmlns="{SVG_NS}">{BENIGN}</svg>'
    ).encode(),
    "parameter_entity": (
        '<!DOCTYPE svg [<!ENTITY % p SYSTEM "http://evil.example/x.dtd"> %p;]>'
        f'<svg xmlns="{SVG_NS}">{BENIGN}</svg>'
    ).encode(),
    "plain_svg_11_doctype": (
        '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"'
        ' "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">'
        f'<svg xmlns="{SVG_NS}">{BENIGN}</svg>'
    ).encode(),
}


@pytest.mark.parametrize("data", DOCTYPES.values(), ids=DOCTYPES.keys())
def test_svg_with_any_doctype_is_refused(data: bytes) -> None:
    message = svg_refusal(data)
    assert "DOCTYPE" in message
    assert "passwd" not in message and "lol" not in message


def test_non_svg_root_is_refused() -> None:
    data = (
        '<html xmlns="http://www.w3.org/1999/xhtml"><body>'
        f'<svg xmlns="{SVG_NS}">{BENIGN}</svg><script>alert(1)</script></body></html>'
    ).encode()
    message = svg_refusal(data)
    assert "<html>" in message and ACCEPTED in message.lower()


def test_svg_root_outside_the_svg_namespace_is_refused() -> None:
    message = svg_refusal(f"<svg>{BENIGN}</svg>".encode())
    assert f'xmlns="{SVG_NS}"' in message


def test_svg_that_is_not_well_formed_is_refused() -> None:
    message = svg_refusal(f'<svg xmlns="{SVG_NS}">\n<rect width="1" height="1">\n</svg>'.encode())
    assert "not well-formed" in message and "line 3" in message


@pytest.mark.parametrize(
    "body",
    [
        "<script>alert(1)</script>",
        '<defs><rect width="10" height="10"/></defs>',
        '<foreignObject><p xmlns="http://www.w3.org/1999/xhtml">hi</p></foreignObject>',
        "<text>   </text><title>Only a title</title>",
        '<use href="#missing"/><image href="http://evil.example/x.png"/>',
        '<rect width="10"/><path/>',
    ],
    ids=["script", "defs-only", "foreign-object", "blank-text", "dangling-use", "no-geometry"],
)
def test_svg_without_drawable_content_after_sanitising_is_refused(body: str) -> None:
    data = f'<svg xmlns="{SVG_NS}" width="10" height="10">{body}</svg>'.encode()
    message = svg_refusal(data)
    assert "The SVG has no drawable content left after removing unsafe parts" in message


def test_sanitise_svg_refuses_raster_bytes() -> None:
    with pytest.raises(PictureError):
        sanitise_svg(raster("PNG"))


# ---------------------------------------------------------------------------
# SVG: complexity limits
# ---------------------------------------------------------------------------


def svg_with_elements(total: int) -> bytes:
    shapes = '<rect width="1" height="1"/>' * (total - 1)
    return f'<svg xmlns="{SVG_NS}">{shapes}</svg>'.encode()


def svg_with_depth(depth: int) -> bytes:
    groups = depth - 2
    return f'<svg xmlns="{SVG_NS}">{"<g>" * groups}{BENIGN}{"</g>" * groups}</svg>'.encode()


def test_svg_with_max_elements_is_accepted() -> None:
    assert check_picture(svg_with_elements(MAX_ELEMENTS)).format == "svg"


def test_svg_with_too_many_elements_is_refused() -> None:
    message = svg_refusal(svg_with_elements(MAX_ELEMENTS + 1))
    assert "20,000 elements" in message


def test_svg_nested_max_depth_is_accepted() -> None:
    assert check_picture(svg_with_depth(MAX_DEPTH)).format == "svg"


def test_svg_nested_too_deep_is_refused() -> None:
    assert "50 levels" in svg_refusal(svg_with_depth(MAX_DEPTH + 1))


def test_svg_nested_extremely_deep_is_refused_without_recursion_error() -> None:
    assert "levels" in svg_refusal(svg_with_depth(200_000))


def test_svg_use_bomb_is_refused() -> None:
    levels = ['<g id="l0">' + '<rect width="1" height="1"/>' * 10 + "</g>"]
    for level in range(1, 7):
        levels.append(f'<g id="l{level}">' + f'<use href="#l{level - 1}"/>' * 10 + "</g>")
    data = f'<svg xmlns="{SVG_NS}"><defs>{"".join(levels)}</defs><use href="#l6"/></svg>'
    assert "too many times" in svg_refusal(data.encode())


def test_svg_use_referring_to_its_own_group_is_refused() -> None:
    data = f'<svg xmlns="{SVG_NS}"><g id="loop">{BENIGN}<use href="#loop"/></g></svg>'
    assert "refers to itself" in svg_refusal(data.encode())


# ---------------------------------------------------------------------------
# SVG: the sanitiser is idempotent
# ---------------------------------------------------------------------------

_numbers = st.integers(min_value=-500, max_value=500).map(str)
_sizes = st.integers(min_value=1, max_value=500).map(str)
_colours = st.sampled_from(["red", "#0a0", "#123456", "none", "rgb(1, 2, 3)", "url(#grad)"])
_words = st.text(alphabet=st.characters(codec="utf-8", categories=("L", "N", "P", "Zs")), max_size=20)


@st.composite
def _shape(draw: st.DrawFn) -> ET.Element:
    kind = draw(st.sampled_from(["rect", "circle", "ellipse", "line", "path", "text", "evil"]))
    if kind == "evil":
        script = ET.Element("script")
        script.text = "alert(1)"
        return script
    attributes = {"fill": draw(_colours)}
    if kind == "rect":
        attributes |= {"x": draw(_numbers), "width": draw(_sizes), "height": draw(_sizes)}
    elif kind == "circle":
        attributes |= {"cx": draw(_numbers), "r": draw(_sizes)}
    elif kind == "ellipse":
        attributes |= {"rx": draw(_sizes), "ry": draw(_sizes)}
    elif kind == "line":
        attributes |= {"x2": draw(_numbers), "y2": draw(_numbers), "stroke": draw(_colours)}
    elif kind == "path":
        attributes["d"] = f"M{draw(_numbers)} {draw(_numbers)}L{draw(_sizes)} {draw(_sizes)}Z"
    if draw(st.booleans()):
        attributes["style"] = f"stroke:{draw(_colours)}; stroke-width : {draw(_sizes)}"
    if draw(st.booleans()):
        attributes["onclick"] = "alert(1)"
    element = ET.Element(kind, attributes)
    if kind == "text":
        element.text = draw(_words)
        if draw(st.booleans()):
            span = ET.SubElement(element, "tspan", {"dy": draw(_numbers)})
            span.text = draw(_words)
            span.tail = draw(_words)
    return element


@st.composite
def _simple_svgs(draw: st.DrawFn) -> bytes:
    # Plain tag names plus an xmlns attribute: the serialised document is in the SVG
    # namespace without touching ElementTree's global prefix registry.
    root = ET.Element("svg", {"xmlns": SVG_NS, "viewBox": f"0 0 {draw(_sizes)} {draw(_sizes)}"})
    gradient = ET.SubElement(ET.SubElement(root, "defs"), "linearGradient", {"id": "grad"})
    ET.SubElement(gradient, "stop", {"offset": "0", "stop-color": "blue"})
    parent = root
    for _ in range(draw(st.integers(min_value=0, max_value=3))):
        parent = ET.SubElement(parent, "g", {"transform": "translate(1,2)"})
    ET.SubElement(parent, "rect", {"id": "benign", "width": "30", "height": "20"})
    for shape in draw(st.lists(_shape(), max_size=8)):
        draw(st.sampled_from([root, parent])).append(shape)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_simple_svgs())
def test_sanitise_svg_is_idempotent_on_its_output(data: bytes) -> None:
    once = sanitise_svg(data)
    assert sanitise_svg(once) == once
    assert_harmless(once)
    find_benign(parse(once))


# ---------------------------------------------------------------------------
# What players receive of a raster picture: its pixels, no metadata
# ---------------------------------------------------------------------------

TELLING = {
    "png": telling_pictures.telling_png,
    "jpeg": telling_pictures.telling_jpeg,
    "webp": telling_pictures.telling_webp,
    "gif": telling_pictures.telling_gif,
}


@pytest.mark.parametrize("fmt", sorted(TELLING))
def test_a_raster_picture_for_players_keeps_no_word_of_its_metadata(fmt: str) -> None:
    original = TELLING[fmt]("Kotwica Polski")
    assert "Kotwica" in telling_pictures.words_beside_pixels(original)  # the fixture tells
    played = raster_for_players(original)
    assert "kotwica" not in telling_pictures.words_beside_pixels(played).lower()
    for codec in ("utf-8", "utf-16-le", "utf-16-be"):
        assert "Kotwica".encode(codec) not in played
    with Image.open(io.BytesIO(played)) as image:
        assert image.format == Image.open(io.BytesIO(original)).format
        assert not image.getexif() and "icc_profile" not in image.info
        assert not {"xmp", "comment", "exif", "XML:com.adobe.xmp"} & set(image.info)


def test_a_png_for_players_has_the_same_pixels_and_transparency() -> None:
    image = telling_pictures.picture().convert("RGBA")
    image.putpixel((0, 0), (0, 0, 0, 0))
    played = raster_for_players(telling_pictures.telling_png("Kotwica", image))
    with Image.open(io.BytesIO(played)) as back:
        same = back.mode == "RGBA" and back.tobytes() == image.tobytes()
    assert same


def test_a_lossless_webp_for_players_stays_lossless() -> None:
    image = telling_pictures.picture()
    played = raster_for_players(telling_pictures.telling_webp("Kotwica", image, lossless=True))
    with Image.open(io.BytesIO(played)) as back:
        same = back.convert("RGB").tobytes() == image.tobytes()
    assert same


def test_a_jpeg_for_players_keeps_its_tables_and_looks_the_same() -> None:
    original = telling_pictures.telling_jpeg("Kotwica")
    played = raster_for_players(original)
    with Image.open(io.BytesIO(original)) as before, Image.open(io.BytesIO(played)) as after:
        assert after.quantization == before.quantization
        differences = [abs(a - b) for a, b in zip(before.tobytes(), after.tobytes(), strict=True)]
        assert sum(differences) / len(differences) < 2  # a second pass, not a new picture


def test_a_photo_turned_by_its_exif_orientation_is_turned_for_players() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: rotate 90° clockwise to show
    buffer = io.BytesIO()
    telling_pictures.picture((96, 64)).save(buffer, "PNG", exif=exif)
    with Image.open(io.BytesIO(raster_for_players(buffer.getvalue()))) as back:
        assert back.size == (64, 96)


def test_a_picture_profile_is_applied_rather_than_sent() -> None:
    image = telling_pictures.picture()
    played = raster_for_players(telling_pictures.telling_png("Kotwica", image))
    with Image.open(io.BytesIO(played)) as back:  # an sRGB profile: the same colours
        same = back.convert("RGB").tobytes() == image.tobytes()
    assert same


@pytest.mark.parametrize("data", [b"", b"\x89PNG\r\n\x1a\n" + b"\0" * 40, b"<svg/>", b"GIF89a"])
def test_a_file_that_is_no_raster_picture_is_refused_for_players(data: bytes) -> None:
    with pytest.raises(PictureError):
        raster_for_players(data)
