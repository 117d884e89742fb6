"""Generated tables for the what-if tests and benchmark (mixed scales, a constant column, a
duplicated column, two planted informative columns among noise) and a check that an HTML page
references nothing outside itself."""

import html.parser

import numpy as np
import pandas as pd

TARGET = "outcome"
#: A public range that covers the generated label (100 * (4 + 2 + noise) + 1000).
Y_RANGE = (700.0, 1900.0)


def make_table(n, d, seed=0):
    """(frame, names): ``d`` features of ``n`` rows and the target column ``TARGET``.

    Column 0 ("signal") carries most of the label, column 1 ("weak") some, the others are
    noise on scales from 1e-3 to 1e6. With d >= 4 the last column is constant and the one
    before it a copy of column 2 (a noise column).
    """
    rng = np.random.default_rng(seed)
    Z = rng.random((n, d))
    y = 4 * Z[:, 0] + (2 * Z[:, 1] if d > 1 else 0) + rng.normal(0, 0.5, n)
    names = ["signal", "weak"][:d] + [f"noise{j}" for j in range(2, d)]
    scales = 10.0 ** rng.uniform(-3, 6, d)
    offsets = rng.normal(0, 100, d)
    X = Z * scales + offsets
    if d >= 4:
        X[:, -1] = 7.0
        names[-1] = "constant"
        X[:, -2] = X[:, 2]
        names[-2] = f"{names[2]}_copy"
    frame = pd.DataFrame(X, columns=names)
    frame[TARGET] = 100 * y + 1000
    return frame, names


class _References(html.parser.HTMLParser):
    """Every URL-valued attribute, every <link>, and the text outside <script>."""

    def __init__(self):
        super().__init__()
        self.urls, self.links, self.text, self._script = [], [], [], False

    def handle_starttag(self, tag, attrs):
        self._script = tag == "script"
        if tag in ("link", "iframe", "object", "embed", "base"):
            self.links.append(tag)
        for name, value in attrs:
            if name in ("src", "href", "data", "action", "poster", "srcset", "background"):
                self.urls.append(value or "")

    def handle_endtag(self, tag):
        if tag == "script":
            self._script = False

    def handle_data(self, data):
        if not self._script:
            self.text.append(data)


def assert_self_contained(page):
    refs = _References()
    refs.feed(page)
    assert not refs.links
    assert all(u.startswith(("data:", "#")) or u == "" for u in refs.urls), refs.urls
    outside = "".join(refs.text)
    assert "http://" not in outside and "https://" not in outside
    assert "@import" not in page and "url(http" not in page
