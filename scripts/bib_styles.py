"""Bibliography labels: an entry with a ``shorthand`` field is labelled by it.

The five source documents have no named authors; ``[Sou24]``, ``[Soua]`` … would say
nothing. They carry ``shorthand = {Source 004}`` in references.bib and are labelled
``[Source 004]``; every other entry keeps the default alpha label (``[VSP+17]``).
"""
from pybtex.plugin import register_plugin
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels.alpha import LabelStyle as AlphaLabelStyle


class ShorthandLabelStyle(AlphaLabelStyle):
    def format_labels(self, sorted_entries):
        entries = list(sorted_entries)
        alpha = super().format_labels(e for e in entries if "shorthand" not in e.fields)
        for entry in entries:
            yield entry.fields["shorthand"] if "shorthand" in entry.fields else next(alpha)


class IllustratedStyle(UnsrtStyle):
    """The default (alpha-labelled, author-year-title sorted) style with shorthand labels."""
    default_label_style = "shorthand"
    default_sorting_style = "author_year_title"


def setup(app):
    register_plugin("pybtex.style.labels", "shorthand", ShorthandLabelStyle)
    register_plugin("pybtex.style.formatting", "illustrated", IllustratedStyle)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
