"""Every page of the built site, read as HTML: the rules of tests/site/html_rules.py, one test
per rule and page (``page`` is each page of both editions, ``zh_page`` each of the Chinese
one); a failure lists what the rule found on that page, one line each."""
from __future__ import annotations

import functools

import pytest

from tests.site import built
from tests.site import html_rules as rules


def none(found: list[str]) -> None:
    """The rule found nothing; else its findings, one a line."""
    assert not found, "\n".join(found)


def test_no_machine_path(site, page):
    none(rules.machine_path(built.read(site, page)))


def test_no_raw_restructuredtext(site, page):
    none(rules.raw_rst(page, built.parsed(site, page)))


def test_glued_values_are_not_quoted_strings(site, page):
    none(rules.glue_quotes(built.parsed(site, page)))


def test_solutions_are_closed_dropdowns(site, page):
    none(rules.open_solutions(built.parsed(site, page)))


def test_code_lines_fit_the_column(site, page):
    none(rules.long_code_lines(built.parsed(site, page)))


def test_no_empty_output_box(site, page):
    none(rules.empty_outputs(built.parsed(site, page)))


def test_links_to_the_same_page_in_the_other_edition(site, page):
    none(rules.edition_switch(page, built.parsed(site, page), site))


def test_chinese_pages_are_chinese(site, zh_page):
    none(rules.untranslated(built.parsed(site, zh_page)))


def test_chinese_pages_have_the_themes_words_in_chinese(site, zh_page):
    none(rules.english_theme_words(built.parsed(site, zh_page)))


def test_chinese_emphasis_is_upright(site, zh_page):
    none(rules.italic_chinese(built.parsed(site, zh_page)))


def test_sections_have_the_same_ids_in_both_editions(site, en_page):
    chinese = built.ZH + en_page
    if not (site / chinese).is_file():
        pytest.skip(f"{chinese} was not built")
    ours = rules.section_ids(built.read(site, en_page))
    theirs = rules.section_ids(built.read(site, chinese))
    only = sorted(set(ours) ^ set(theirs)) or ["the same ids in another order"]
    assert ours == theirs, f"its sections' ids differ in {chinese}: {', '.join(only[:5])}"


def test_internal_links_lead_to_a_page_and_its_anchor(site, page):
    anchors_of = functools.partial(_anchors, site)
    none(rules.broken_links(page, built.parsed(site, page), site, anchors_of))


def test_no_text_is_struck_through(site, page):
    none(rules.struck_text(built.parsed(site, page)))


def test_chinese_tables_have_chinese_headers(site, page):
    none(rules.english_table_headers(page, built.parsed(site, page)))


def test_footer_says_the_licence(site, page):
    none(rules.licence_footer(page, built.parsed(site, page)))


@functools.cache
def _anchors(site, path: str) -> set[str]:
    return rules.anchors(built.parsed(site, path))


@pytest.mark.parametrize("redirect", built.REDIRECTS)
def test_redirects_name_the_icon(site, redirect):
    """Without <link rel="icon"> the browser asks for /favicon.ico, which the site lacks
    (a 404 in the console)."""
    assert built.parsed(site, redirect).xpath("//link[@rel='icon']"), \
        f"{redirect} has no <link rel=\"icon\">"


API_NAMES = rules.expected_api(rules.API_SOURCE.read_text(encoding="utf-8"))


def test_the_api_page_lists_modules():
    assert API_NAMES, f"{rules.API_SOURCE} documents no module with automodule"


@pytest.mark.parametrize("name", API_NAMES)
def test_the_api_page_renders_each_public_name(site, name):
    assert (site / rules.API_PAGE).is_file(), f"{rules.API_PAGE} was not built"
    assert name in _signatures(site), f"no rendered signature for {name} on {rules.API_PAGE}"


@functools.cache
def _signatures(site) -> set[str]:
    return rules.rendered_signatures(built.parsed(site, rules.API_PAGE))
