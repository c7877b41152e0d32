"""Geometry of the classroom's screens, measured in the browser (issue 18, items 1 and 2).

The screens a lesson uses, as Playwright context options (``browsing.new_page(**PHONE)``),
and assertions on what the page laid out: a playing surface inside the viewport with the
page at the top (nothing to scroll to), type sizes, tap targets, no sideways scrolling.
Each assertion names the selector and the numbers it found, so a failure says what moved.
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

PHONE: dict[str, Any] = {
    "viewport": {"width": 360, "height": 740},
    "has_touch": True,
    "is_mobile": True,
}
PHONE_LANDSCAPE: dict[str, Any] = {
    "viewport": {"width": 740, "height": 360},
    "has_touch": True,
    "is_mobile": True,
}
TEACHER: dict[str, Any] = {"viewport": {"width": 1366, "height": 768}}
LAPTOP = TEACHER  # the teacher's (or the facilitator's) laptop
PROJECTOR_1080: dict[str, Any] = {"viewport": {"width": 1920, "height": 1080}}
PROJECTOR_720: dict[str, Any] = {"viewport": {"width": 1280, "height": 720}}

# At 1920×1080 in the projector view: read from the back of the room.
PROJECTOR_BODY_PX = 32
PROJECTOR_NUMBER_PX = 64
TAP_PX = 44


def projector_px(px: float, screen: dict[str, Any]) -> float:
    """A projector's size rule of 1080 lines scaled to ``screen``'s height: the projector
    view sets its type in viewport units, so 32 px at 1080 lines are 21.3 px at 720."""
    return px * screen["viewport"]["height"] / 1080


# Rounding of sub-pixel layout: a box may end a fraction of a pixel past the edge.
_SLACK = 0.5


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.x + self.width

    @property
    def bottom(self) -> float:
        return self.y + self.height


def viewport(page: Page) -> tuple[int, int]:
    """The layout viewport (without scroll bars) as the page sees it."""
    size = page.evaluate(
        "() => [document.documentElement.clientWidth, document.documentElement.clientHeight]"
    )
    return int(size[0]), int(size[1])


#: How long a measurement waits for a page that is redrawing itself (a live page draws
#: from each state it hears) to hold still: a box read mid-redraw is a replaced element's.
SETTLE_SECONDS = 5.0


def box(page: Page, selector: str) -> Box:
    """The first visible match's box relative to the viewport, the page scrolled to its top.

    Measured on an element still in the page: one that a redraw replaced between finding
    and measuring it (empty box, detached) is found again, for up to :data:`SETTLE_SECONDS`.
    """
    page.evaluate("() => window.scrollTo(0, 0)")
    element = page.locator(selector).locator("visible=true").first
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        element.wait_for(state="visible")
        rect = element.evaluate(
            "(e) => { const r = e.getBoundingClientRect();"
            " return [r.x, r.y, r.width, r.height, e.isConnected]; }"
        )
        found = Box(*(float(v) for v in rect[:4]))
        if (rect[4] and found.width > 0 and found.height > 0) or time.monotonic() > deadline:
            return found
        page.wait_for_timeout(100)


def text_box(page: Page, selector: str) -> Box:
    """The box of the first visible match's text itself (not of its block, which may span the
    whole width), the page scrolled to its top."""
    page.evaluate("() => window.scrollTo(0, 0)")
    element = page.locator(selector).locator("visible=true").first
    element.wait_for(state="visible")
    rect = element.evaluate(
        "(e) => { const range = document.createRange(); range.selectNodeContents(e);"
        " const r = range.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }"
    )
    return Box(*(float(v) for v in rect))


def assert_apart(page: Page, first: str, second: str) -> None:
    """The two elements' texts do not overlap on the screen (one would hide the other)."""
    a, b = text_box(page, first), text_box(page, second)
    overlap = (
        a.x < b.right - _SLACK
        and b.x < a.right - _SLACK
        and a.y < b.bottom - _SLACK
        and b.y < a.bottom - _SLACK
    )
    assert not overlap, f"{first} {a} and {second} {b} overlap"


def assert_fits(page: Page, selector: str) -> Box:
    """The element lies inside the viewport with the page at its top: no scrolling needed."""
    found = box(page, selector)
    width, height = viewport(page)
    assert found.width > 0 and found.height > 0, f"{selector} has no size: {found}"
    assert found.x >= -_SLACK and found.y >= -_SLACK, f"{selector} starts off screen: {found}"
    assert found.right <= width + _SLACK and found.bottom <= height + _SLACK, (
        f"{selector} ends at x={found.right:.0f}, y={found.bottom:.0f}, "
        f"outside the {width}×{height} viewport: {found}"
    )
    return found


def assert_no_page_scroll(page: Page) -> None:
    """The document is no taller and no wider than the viewport, once the page has drawn
    itself (a page still laying out its first state gets :data:`SETTLE_SECONDS`)."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        size = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
        )
        width, height = viewport(page)
        if (size[0] <= width and size[1] <= height) or time.monotonic() > deadline:
            break
        page.wait_for_timeout(100)
    assert size[0] <= width and size[1] <= height, (
        f"The page is {size[0]}×{size[1]} in a {width}×{height} viewport: it scrolls"
    )


def assert_no_horizontal_overflow(page: Page) -> None:
    """Nothing makes the page scroll sideways."""
    scroll_width = page.evaluate("() => document.documentElement.scrollWidth")
    width, _ = viewport(page)
    assert scroll_width <= width, f"The page is {scroll_width} px wide in a {width}-px viewport"


def font_px(page: Page, selector: str) -> float:
    """The computed font size, in CSS pixels, of the first visible match.

    Playwright finds the element and then reads its style in a second step; a page that
    draws itself anew on each update (a poll's) may replace the element in between, and a
    detached element has no computed style. Then the match is found again.
    """
    element = page.locator(selector).locator("visible=true").first
    for _attempt in range(10):
        element.wait_for(state="visible")
        size = float(
            element.evaluate("(e) => e.isConnected ? parseFloat(getComputedStyle(e).fontSize) : NaN")
        )
        if not math.isnan(size):
            return size
    raise AssertionError(f"{selector} was drawn anew each time its font size was read")


def assert_font_at_least(page: Page, selector: str, min_px: float) -> float:
    size = font_px(page, selector)
    assert size >= min_px, f"{selector} is set in {size:.1f} px, under {min_px} px"
    return size


def assert_tap_targets(page: Page, selector: str, min_px: float = TAP_PX) -> int:
    """Every visible match is at least min_px × min_px; returns how many were measured."""
    sizes = page.locator(selector).evaluate_all(
        """(elements) => elements
            .filter((e) => e.getClientRects().length > 0
                && getComputedStyle(e).visibility !== "hidden")
            .map((e) => {
                const r = e.getBoundingClientRect();
                const name = (e.getAttribute("aria-label") || e.textContent || e.tagName).trim();
                return [name.slice(0, 40), r.width, r.height];
            })"""
    )
    small = [s for s in sizes if s[1] < min_px - _SLACK or s[2] < min_px - _SLACK]
    assert sizes, f"No visible {selector} to measure"
    assert not small, f"Tap targets under {min_px} px ({selector}): " + ", ".join(
        f"{name!r} {w:.0f}×{h:.0f}" for name, w, h in small
    )
    return len(sizes)


def projector_view(page: Page) -> bool:
    return page.evaluate("() => document.documentElement.dataset.view === 'projector'") is True


def _overlaps(a: Box, b: Box) -> bool:
    return (
        a.x < b.right - _SLACK
        and b.x < a.right - _SLACK
        and a.y < b.bottom - _SLACK
        and b.y < a.bottom - _SLACK
    )


def assert_uncovered_by_join_strip(page: Page, selector: str) -> int:
    """No visible match lies under the join code's corner strip (it floats above the page once
    play starts): the strip must never hide a card, a slot or a control of the game.

    The strip as it is on the page counts, folded or opened; with no strip on the page (a
    student's screen) there is nothing to cover. What counts of an element is the part its
    scrolling boxes show (a long front scrolled out of its column is not under the strip,
    it is not on the screen at all). Returns how many elements were checked."""
    page.evaluate("() => window.scrollTo(0, 0)")
    strip = page.locator("[data-join-strip]").locator("visible=true")
    found = page.locator(selector).locator("visible=true")
    assert found.count(), f"No visible {selector} to check against the join strip"
    if not strip.count():
        return found.count()
    rect = strip.first.evaluate(
        "(e) => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }"
    )
    covering = Box(*(float(v) for v in rect))
    boxes = found.evaluate_all(
        """(elements) => elements.map((e) => {
            // The part of the element on the screen: cut by every ancestor that clips its
            // overflow (a box that scrolls inside the page shows only its own window).
            const r = e.getBoundingClientRect();
            let [left, top, right, bottom] = [r.left, r.top, r.right, r.bottom];
            for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
                const style = getComputedStyle(p);
                if (style.overflowX === "visible" && style.overflowY === "visible") continue;
                const c = p.getBoundingClientRect();
                const cl = c.left + p.clientLeft, ct = c.top + p.clientTop;
                left = Math.max(left, cl); top = Math.max(top, ct);
                right = Math.min(right, cl + p.clientWidth); bottom = Math.min(bottom, ct + p.clientHeight);
            }
            const name = (e.getAttribute("aria-label") || e.textContent || e.tagName).trim();
            return [name.slice(0, 40), left, top, Math.max(0, right - left), Math.max(0, bottom - top)];
        })"""
    )
    covered = [
        (name, Box(x, y, w, h))
        for name, x, y, w, h in boxes
        if w and h and _overlaps(Box(x, y, w, h), covering)
    ]
    assert not covered, f"The join strip {covering} covers {selector}: " + ", ".join(
        f"{name!r} {found_box}" for name, found_box in covered
    )
    return len(boxes)


def resize_to(page: Page, screen: dict[str, Any]) -> None:
    """Give ``page`` the viewport of ``screen`` and let its layout follow: the games' scripts
    refit their cards and tables in the animation frame after a resize, so two frames are
    waited for, then at most 5 s for the page to stop scrolling. A page that never fits is
    left to the assertions that follow, which say what overflows."""
    page.set_viewport_size(screen["viewport"])
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(
            "() => document.documentElement.scrollWidth <= innerWidth"
            " && document.documentElement.scrollHeight <= innerHeight",
            timeout=5000,
        )
