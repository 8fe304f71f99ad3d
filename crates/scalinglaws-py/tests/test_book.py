"""The book (docs/, built by scripts/book.sh into target/book) works as a site read from
file://: every page of the nav is built, every local link and asset resolves, nothing is fetched
from the network, and, in headless Chromium, pages render and search finds what it should.

Without a built book these tests skip, saying so (the test command builds it first and sets
SCALINGLAWS_REQUIRE_BOOK=1, which makes a missing book a failure). The browser test finds
Chromium as the report's does: SCALINGLAWS_CHROMIUM, else /usr/bin/chromium; without one it
skips, unless SCALINGLAWS_REQUIRE_BROWSER=1 (CI)."""

import os
import pathlib
import re
import subprocess
import tempfile
from typing import List
from urllib.parse import unquote

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
BOOK = pathlib.Path(os.environ.get("SCALINGLAWS_BOOK", ROOT / "target" / "book"))
LINK = re.compile(r'(?:href|src)="([^"]*)"')


@pytest.fixture(scope="module")
def book() -> pathlib.Path:
    if not (BOOK / "index.html").is_file():
        reason = f"the book is not built at {BOOK} (bash scripts/book.sh builds it)"
        if os.environ.get("SCALINGLAWS_REQUIRE_BOOK") == "1":
            pytest.fail(reason + "; SCALINGLAWS_REQUIRE_BOOK=1 requires it")
        pytest.skip(reason)
    return BOOK


def nav_pages() -> List[str]:
    """The pages of mkdocs.yml's nav, as the site's HTML paths."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = config.split("\nnav:\n", 1)[1]
    return [
        m.group(1) + ".html" for m in re.finditer(r"[ :]([\w/.-]+)\.md\s*$", nav, re.M)
    ]


def test_every_page_of_the_nav_is_built(book: pathlib.Path) -> None:
    pages = nav_pages()
    assert len(pages) >= 20, pages
    missing = [p for p in pages if not (book / p).is_file()]
    assert not missing, f"pages of the nav that were not built: {missing}"


def test_every_local_link_resolves_and_nothing_is_fetched(book: pathlib.Path) -> None:
    broken, fetched = [], []
    for page in sorted(book.rglob("*.html")):
        if page.name == "404.html":
            continue  # a web server's error page: its links are absolute, as a server needs
        html = page.read_text(encoding="utf-8")
        for target in LINK.findall(html):
            if target.startswith(("https://", "http://")):
                # A link a reader may follow is fine; a script, style or image fetched is not.
                if re.search(r'(?:src|<link[^>]*href)="' + re.escape(target), html):
                    fetched.append(f"{page.relative_to(book)}: {target}")
                continue
            if target.startswith(("#", "mailto:", "data:", "javascript:")) or not target:
                continue
            path = unquote(target.split("#", 1)[0].split("?", 1)[0])
            if path and not (page.parent / path).exists():
                broken.append(f"{page.relative_to(book)}: {target}")
    assert not broken, "links to nothing:\n" + "\n".join(broken[:20])
    assert not fetched, "assets fetched from the network:\n" + "\n".join(fetched[:20])


def chromium() -> str:
    named = os.environ.get("SCALINGLAWS_CHROMIUM")
    candidates = [named] if named else ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
    for candidate in candidates:
        if os.path.isfile(candidate):
            return candidate
    reason = f"no Chromium at {' or '.join(candidates)} (install Debian's chromium)"
    if os.environ.get("SCALINGLAWS_REQUIRE_BROWSER") == "1":
        pytest.fail(reason + "; SCALINGLAWS_REQUIRE_BROWSER=1 requires the browser test")
    pytest.skip(reason)


def headless(browser: str, profile: str, *args: str) -> str:
    done = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", *args],
        capture_output=True, text=True, timeout=120,
    )
    return done.stdout


def test_pages_render_and_search_works_from_file_urls(book: pathlib.Path) -> None:
    browser = chromium()
    with tempfile.TemporaryDirectory() as scratch:
        page = headless(browser, f"{scratch}/a", "--virtual-time-budget=5000", "--dump-dom",
                        (book / "guide" / "isoflop.html").as_uri())
        assert "<h1" in page and "IsoFLOP profiles" in page
        assert "md-nav" in page, "the page has no navigation"
        found = headless(browser, f"{scratch}/b", "--virtual-time-budget=10000", "--dump-dom",
                         (book / "index.html").as_uri() + "?q=isoflop")
        meta = re.search(r'md-search-result__meta">([^<]*)<', found)
        assert meta, "no search result list"
        count = re.match(r"(\d+) matching document", meta.group(1))
        assert count and int(count.group(1)) >= 2, f"search for 'isoflop': {meta.group(1)!r}"
        assert 'href="guide/isoflop.html' in found, "search does not find the IsoFLOP guide"
        for name, url in [("home", book / "index.html"), ("guide", book / "guide" / "trust.html")]:
            shot = pathlib.Path(os.environ.get("SCALINGLAWS_SHOTS", scratch)) / f"book-{name}.png"
            shot.unlink(missing_ok=True)  # an earlier run's picture proves nothing
            headless(browser, f"{scratch}/{name}", "--window-size=1280,1600",
                     f"--screenshot={shot}", url.as_uri())
            assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"no screenshot of {url}"


def slug(heading: str) -> str:
    """A heading's anchor, as MkDocs' toc and GitHub make it (for the headings we write)."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"[^\w\s-]", "", text)
    return re.sub(r"\s+", "-", text.strip())


def test_the_readmes_links_reach_files_and_headings_that_exist() -> None:
    """The README is outside the book, so MkDocs does not check its links: this does."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", readme):
        if target.startswith(("https://", "http://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        file = ROOT / path if path else ROOT / "README.md"
        if not file.exists():
            broken.append(f"{target}: no such file")
            continue
        if anchor and file.suffix == ".md":
            prose = re.sub(r"^```.*?^```", "", file.read_text(encoding="utf-8"), flags=re.S | re.M)
            headings = re.findall(r"^#+ (.+)$", prose, re.M)
            if anchor not in {slug(h) for h in headings}:
                broken.append(f"{target}: no such heading in {path or 'README.md'}")
    assert not broken, "README links to nothing:\n" + "\n".join(broken)
