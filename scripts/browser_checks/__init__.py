"""Interactive browser checks, run by scripts/check_browser.py after every page has been
opened: each module here defines ``check(context, origin, html_dir) -> list[str]``, opens
its pages with ``check_browser.open_page`` (which blocks and reports any request that
leaves 127.0.0.1), types and drags as a reader would, and returns its problems as
``page: rule: message`` lines (an empty list when all is well)."""
