"""The copy of an SVG that players and quiz-takers receive (``pictures.svg_for_players``),
rule by rule: it draws what the original draws and carries no word about it."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from content.pictures import PictureError, svg_for_players

SVG = "http://www.w3.org/2000/svg"


def svg(inner: str, **root: str) -> bytes:
    attributes = " ".join(f'{name}="{value}"' for name, value in root.items())
    return f'<svg xmlns="{SVG}" viewBox="0 0 100 100" {attributes}>{inner}</svg>'.encode()


def played(inner: str, **root: str) -> ET.Element:
    return ET.fromstring(svg_for_players(svg(inner, **root)))


def tags(root: ET.Element) -> list[str]:
    return [element.tag.rpartition("}")[2] for element in root.iter()]


SQUARE = '<rect width="10" height="10" fill="red"/>'


def test_title_goes():
    root = played(f"<title>Kotwica</title>{SQUARE}")
    assert "title" not in tags(root) and b"Kotwica" not in ET.tostring(root)


def test_desc_goes():
    root = played(f"<desc>Znak Polski Walczącej</desc>{SQUARE}")
    assert "desc" not in tags(root) and "Walczącej" not in ET.tostring(root, encoding="unicode")


def test_metadata_goes():
    data = svg(f"<metadata><rdf>Kotwica</rdf></metadata>{SQUARE}")
    assert b"Kotwica" not in svg_for_players(data) and b"metadata" not in svg_for_players(data)


def test_text_and_its_tspans_go_and_the_shapes_stay():
    root = played(f'<text x="5" y="5">Ko<tspan>twi</tspan>ca</text><g><text>PW</text>{SQUARE}</g>')
    assert "text" not in tags(root) and "tspan" not in tags(root)
    assert tags(root).count("rect") == 1
    assert "".join(root.itertext()).strip() == ""


def test_a_picture_that_was_only_lettering_comes_out_blank_not_readable():
    root = played('<text x="5" y="50">Kotwica</text>')
    assert tags(root) == ["svg"] and "".join(root.itertext()) == ""


def test_aria_attributes_go():
    root = played('<rect aria-label="Kotwica" aria-describedby="d" role="img" width="1" height="1"/>')
    rect = root.find(f"{{{SVG}}}rect")
    assert rect is not None
    assert not [name for name in rect.attrib if name.startswith("aria") or name == "role"]


def test_ids_become_opaque_and_references_follow_them():
    root = played(
        '<defs><linearGradient id="kotwica-gradient"><stop offset="0" stop-color="red"/></linearGradient>'
        '<clipPath id="kotwica-clip"><circle r="5"/></clipPath></defs>'
        '<rect id="kotwica" width="1" height="1" fill="url(#kotwica-gradient)" '
        'style="stroke:url(\'#kotwica-gradient\')" clip-path="url(#kotwica-clip)"/>'
        '<use href="#kotwica"/>'
    )
    text = ET.tostring(root, encoding="unicode")
    assert "kotwica" not in text
    ids = {element.get("id") for element in root.iter() if element.get("id")}
    assert ids == {"i1", "i2", "i3"}
    rect = root.find(f"{{{SVG}}}rect")
    assert rect is not None
    gradient = rect.get("fill", "")[len("url(#") : -1]
    assert gradient in ids and rect.get("style") == f"stroke:url(#{gradient})"
    assert rect.get("clip-path", "")[len("url(#") : -1] in ids
    use = root.find(f"{{{SVG}}}use")
    assert use is not None and use.get("href") == f"#{rect.get('id')}"


def test_the_same_file_always_gives_the_same_copy():
    data = svg(f'<title>Kotwica</title><g id="a">{SQUARE}</g><g id="b"/>')
    assert svg_for_players(data) == svg_for_players(data)


def test_what_the_upload_cleaner_refuses_stays_refused():
    with pytest.raises(PictureError):
        svg_for_players(b"<html><script>alert(1)</script></html>")


def test_scripts_and_handlers_of_a_file_stored_under_older_rules_go_too():
    data = svg(f'<script>alert(1)</script><rect onclick="alert(1)" width="1" height="1"/>{SQUARE}')
    out = svg_for_players(data)
    assert b"script" not in out and b"onclick" not in out and b"alert" not in out
