"""The built docs site's internal links: every href and src that is not a web address must
lead to a file of the site, and an anchor to an id in that file. Exit 1, listing the broken.

    python .ci/docs_links.py docs/_build/html
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and name in ("href", "src"):
                self.links.append(value)
            if value and name == "id":
                self.ids.add(value)


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def main(root: Path) -> int:
    root = root.resolve()
    pages = {p.resolve(): parse(p) for p in root.rglob("*.html")}
    broken = []
    for path, page in pages.items():
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:")):
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{path.relative_to(root)}: {link}")
            elif parts.fragment and target.suffix == ".html":
                ids = (pages[target] if target in pages else parse(target)).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{path.relative_to(root)}: {link} (no such anchor)")
    for line in broken:
        print(f"broken link: {line}")
    print(f"docs links: {sum(len(p.links) for p in pages.values()):,} links in {len(pages)} "
          f"pages, {len(broken)} broken")  # fmt: skip
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
