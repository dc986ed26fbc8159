"""Issue 41, item 6: no page scrolls sideways at 1440, 1000 or 800 px (the document's scrollWidth
never passes the window's width): the list, a trace, a comparison (one a side and pooled)."""
import pytest

WIDTHS = (1440, 1000, 800)


def overflow(page):
    """How far the document reaches past the window, and the widest elements that do it."""
    return page.evaluate("""() => {
        const width = document.documentElement.clientWidth;
        const wide = [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > width + 1)
          .slice(0, 5).map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className}`.slice(0, 80));
        return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, width, wide };
    }""")


def assert_no_sideways_scroll(page, where):
    measured = overflow(page)
    assert measured["scrollWidth"] <= measured["innerWidth"], (where, measured)


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_scrolls_sideways(page, server, sample_id, timeline, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(server)
    page.get_by_role("table", name="Traces").wait_for()
    assert_no_sideways_scroll(page, "home")

    slow, fixed = sample_id("landmarks-scroll-slow"), sample_id("landmarks-scroll-fixed")
    timeline.open(page, slow)
    page.wait_for_timeout(300)
    assert_no_sideways_scroll(page, "trace")

    page.goto(f"{server}/compare/{slow}/{fixed}")
    page.locator("#compare-views").wait_for()
    assert_no_sideways_scroll(page, "compare")

    fav_slow, fav_fixed = sample_id("landmarks-favorites-slow"), sample_id("landmarks-favorites-fixed")
    page.goto(f"{server}/compare?v=3&a={slow},{fav_slow}&b={fixed},{fav_fixed}")
    page.locator("#compare-views").wait_for()
    assert_no_sideways_scroll(page, "pooled compare")
    assert not page.errors
