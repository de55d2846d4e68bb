"""Every page of both editions opened in Chromium as a reader opens it, one test per rule of
rules.py and page. Each page is opened once per run (``looked``): loaded, read, its first
screen saved in _build/screenshots/ (the whole page with --full-screenshots), its closed
solutions clicked open, its layout read at 1280 and 390 px, its CJK characters drawn
(solutions' text included); each test then asserts one
rule on what was seen, listing its findings one a line."""
from __future__ import annotations

import traceback

import pytest

from tests.site.browser import fit, rules, tabs


def _look(tab, origin: str, name: str, shots, full: bool) -> dict[str, list[str]]:
    watched = tabs.Watched(tab, origin)  # from the first request of this page
    try:
        tab.goto(f"{origin}/{name}", wait_until="load")
        found = rules.inspect(tab)
        target = shots / name.replace(".html", ".png")
        target.parent.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(target), full_page=full)
        solutions = rules.solutions(tab)
        fits = fit.fit(tab)  # solutions open: their code is looked at too
        drawn = rules.tofu(tab)  # once, with the solutions' text shown (each said to be)
    finally:
        watched.stop()
    return {"request": watched.requests, "console": watched.console,
            "math": rules.math(found), "image": rules.images(found),
            "code-width": rules.code_width(found), "slant": rules.slant(found),
            "tofu": drawn, "solution": solutions,
            **{f"fit {width} px": found for width, found in fits.items()}}


@pytest.fixture(scope="session")
def looked(browser, origin, screenshots, pytestconfig):
    """``looked(page)``: what each rule found on ``page``, which is opened the first time,
    in one tab that goes from page to page as a reader's does (a page opened in a new
    context, its own process with no cache and every script compiled again, took 2.5 s of
    CPU on 2 cores; the next page in the same tab 0.9 s). A page that could not be read
    leaves the tab behind: the next page gets a new one."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = [context.new_page()]
    seen: dict[str, dict | str] = {}

    def look(name: str) -> dict[str, list[str]]:
        if name not in seen:
            try:
                seen[name] = _look(tab[0], origin, name, screenshots,
                                   pytestconfig.getoption("full_screenshots"))
            except Exception:  # noqa: BLE001 - every test of the page says why
                seen[name] = traceback.format_exc()
                tab[0].close()
                tab[0] = context.new_page()
        if isinstance(seen[name], str):
            pytest.fail(f"{name} could not be opened and read:\n{seen[name]}")
        return seen[name]
    yield look
    context.close()


def none(found: list[str]) -> None:
    """The rule found nothing; else its findings, one a line."""
    assert not found, "\n".join(found)


def test_requests_stay_on_the_machine_and_succeed(looked, page):
    none(looked(page)["request"])


def test_no_console_errors(looked, page):
    none(looked(page)["console"])


def test_math_is_typeset(looked, page):
    none(looked(page)["math"])


def test_images_load_and_have_alt_text(looked, page):
    none(looked(page)["image"])


def test_closed_solutions_hide_their_code_until_opened(looked, page):
    none(looked(page)["solution"])


def test_code_does_not_scroll_sideways(looked, page):
    none(looked(page)["code-width"])


@pytest.mark.parametrize("width", [fit.WIDE, fit.PHONE])
def test_everything_fits_the_column(looked, page, width):
    none(looked(page)[f"fit {width} px"])


def test_no_tofu(looked, page):
    none(looked(page)["tofu"])


def test_no_chinese_in_italics(looked, page):
    none(looked(page)["slant"])
