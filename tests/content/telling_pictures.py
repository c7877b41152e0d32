"""Raster pictures whose metadata names their subject, as cameras' and editors' files do,
and a reader of every word Pillow finds beside a picture's pixels.

Shared by the picture rules' tests and the test of everything a student receives.
"""

from __future__ import annotations

import io
import zlib

from PIL import Image, ImageCms, PngImagePlugin

# EXIF tags that editors fill with words: ImageDescription, Artist, Copyright, XPTitle.
_EXIF_WORDS = (0x010E, 0x013B, 0x8298)
_XP_TITLE = 0x9C9B
_ICC_DESCRIPTION = "sRGB built-in"  # lcms's own sRGB profile, described in UTF-16BE


def xmp(name: str) -> bytes:
    return (
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/">'
        f"<dc:title>{name}</dc:title></rdf:Description></rdf:RDF></x:xmpmeta>"
    ).encode()


def icc_describing(name: str) -> bytes:
    """An sRGB profile whose description is ``name`` (cut or padded to 13 characters, the
    length of lcms's own description, which it replaces in place)."""
    profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    described = name[: len(_ICC_DESCRIPTION)].ljust(len(_ICC_DESCRIPTION))
    return profile.replace(_ICC_DESCRIPTION.encode("utf-16-be"), described.encode("utf-16-be"))


def exif_naming(name: str) -> Image.Exif:
    exif = Image.Exif()
    for tag in _EXIF_WORDS:
        exif[tag] = name
    exif[_XP_TITLE] = name.encode("utf-16-le") + b"\0\0"
    exif[0x0112] = 1  # Orientation: as stored
    return exif


def picture(size: tuple[int, int] = (96, 80)) -> Image.Image:
    """Four coloured quarters: wordless, and easy to compare after re-encoding."""
    image = Image.new("RGB", size, "#1f6feb")
    width, height = size
    image.paste((200, 30, 30), (0, 0, width // 2, height // 2))
    image.paste((30, 160, 60), (width // 2, height // 2, width, height))
    return image


def telling_png(name: str, image: Image.Image | None = None) -> bytes:
    info = PngImagePlugin.PngInfo()
    info.add_text("Title", name)  # tEXt, or iTXt when the name is not Latin-1
    info.add_itxt("Description", f"{name}, a symbol", lang="pl", tkey=name)
    info.add_text("Comment", f"{name} (compressed)", zip=True)  # zTXt
    info.add_itxt("XML:com.adobe.xmp", xmp(name).decode())
    buffer = io.BytesIO()
    (image or picture()).save(
        buffer, "PNG", pnginfo=info, exif=exif_naming(name), icc_profile=icc_describing(name)
    )
    return buffer.getvalue()


def telling_jpeg(name: str, image: Image.Image | None = None) -> bytes:
    buffer = io.BytesIO()
    (image or picture()).save(
        buffer,
        "JPEG",
        quality=90,
        exif=exif_naming(name),
        icc_profile=icc_describing(name),
        comment=f"{name}, a symbol".encode(),
        xmp=xmp(name),
    )
    return buffer.getvalue()


def telling_webp(name: str, image: Image.Image | None = None, *, lossless: bool = False) -> bytes:
    buffer = io.BytesIO()
    (image or picture()).save(
        buffer,
        "WEBP",
        lossless=lossless,
        exif=exif_naming(name),
        icc_profile=icc_describing(name),
        xmp=xmp(name),
    )
    return buffer.getvalue()


def telling_gif(name: str, image: Image.Image | None = None) -> bytes:
    buffer = io.BytesIO()
    (image or picture()).convert("P").save(buffer, "GIF", comment=f"{name}, a symbol")
    return buffer.getvalue()


def words_beside_pixels(data: bytes) -> str:
    """Every word Pillow reads from a picture's metadata, decompressed and decoded: its
    info (PNG text chunks, comments, XMP), its EXIF values and its ICC description."""
    words: list[str] = []
    with Image.open(io.BytesIO(data)) as image:
        for key, value in image.info.items():
            words.append(str(key))
            words.append(_text(value))
        for value in image.getexif().values():
            words.append(_text(value))
        icc = image.info.get("icc_profile")
        if icc:
            words.append(ImageCms.getProfileDescription(ImageCms.ImageCmsProfile(io.BytesIO(icc))))
        if image.format == "PNG":
            for chunk in _png_chunks(data):
                words.append(_text(chunk))
    return "\n".join(words)


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return "\n".join(value.decode(codec, errors="ignore") for codec in ("utf-8", "utf-16-le", "latin-1"))
    return str(value)


def _png_chunks(data: bytes) -> list[bytes]:
    """The payloads of a PNG's text chunks, zTXt inflated."""
    found, position = [], 8
    while position + 8 <= len(data):
        length = int.from_bytes(data[position : position + 4], "big")
        kind, payload = data[position + 4 : position + 8], data[position + 8 : position + 8 + length]
        if kind == b"zTXt":
            keyword, _, rest = payload.partition(b"\0")
            found.append(keyword + b"\n" + zlib.decompress(rest[1:]))
        elif kind in (b"tEXt", b"iTXt", b"eXIf"):
            found.append(payload)
        position += 12 + length
    return found
