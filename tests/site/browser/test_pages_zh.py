"""The rules of test_pages.py on the Chinese edition's pages (``zh/...``): the same tests,
collected in a module of their own so that pytest-xdist (``--dist loadscope``) runs the two
editions on two workers side by side."""
from tests.site.browser.test_pages import *  # noqa: F401,F403 - the tests, and looked

EDITION = "zh"
