"""Bibliography labels: an entry with a ``shorthand`` field is labelled by it.

The five source documents have no named authors; ``[Sou24]``, ``[Soua]`` … would say
nothing. They carry ``shorthand = {Source 004}`` in references.bib and are labelled
``[Source 004]``; every other entry keeps the default alpha label (``[VSP+17]``). The
Chinese edition (``language`` zh_CN) labels them ``[资料 004]``, the word its text uses.
"""
from pybtex.plugin import register_plugin
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels.alpha import LabelStyle as AlphaLabelStyle


# The shorthand's first word in the language of the build (set once the config is read).
SHORTHAND_WORDS: dict[str, str] = {}
CHINESE_WORDS = {"Source": "资料"}


def shorthand(label: str) -> str:
    """``label`` with its first word in the build's language: "Source 004" -> "资料 004"."""
    word, space, rest = label.partition(" ")
    return SHORTHAND_WORDS.get(word, word) + space + rest


class ShorthandLabelStyle(AlphaLabelStyle):
    def format_labels(self, sorted_entries):
        entries = list(sorted_entries)
        alpha = super().format_labels(e for e in entries if "shorthand" not in e.fields)
        for entry in entries:
            yield (shorthand(entry.fields["shorthand"]) if "shorthand" in entry.fields
                   else next(alpha))


def _language(app, config):
    SHORTHAND_WORDS.clear()
    if (config.language or "en").startswith("zh"):
        SHORTHAND_WORDS.update(CHINESE_WORDS)


class IllustratedStyle(UnsrtStyle):
    """The default (alpha-labelled, author-year-title sorted) style with shorthand labels."""
    default_label_style = "shorthand"
    default_sorting_style = "author_year_title"


def setup(app):
    register_plugin("pybtex.style.labels", "shorthand", ShorthandLabelStyle)
    register_plugin("pybtex.style.formatting", "illustrated", IllustratedStyle)
    app.connect("config-inited", _language)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
