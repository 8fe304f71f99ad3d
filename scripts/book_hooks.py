"""MkDocs hooks of the book (mkdocs.yml: hooks). The package's docstrings cross-reference in
Sphinx's roles (:func:`fit`, :class:`Frontier`), which mkdocstrings renders as the role's raw
text before the code; this leaves the code alone, as the reader expects."""

import re

ROLE = re.compile(r":(?:func|meth|class|mod|attr|data|exc|obj):\s*(?=<code>)")


def on_page_content(html: str, **kwargs: object) -> str:
    return ROLE.sub("", html)
