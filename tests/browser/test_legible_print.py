"""Legible print: the reproduction report measured in Chromium at 1024 px (issue 31 item 5).

Every text of the page and of its figures is at least 10 CSS px; every log axis is labelled at
values a reader reads (1, 2, 3 or 5 times a power of ten, or powers of ten), never plotly's
stray mantissas; the bullets of "What differs from the paper" sit inside their callout, clear of
its border. The static figures of the course are measured in JupyterLab by test_lab.py.
"""

import itertools
import re
import subprocess
import sys

import pytest
from _browser import ROOT

pytestmark = pytest.mark.browser

MIN_TEXT_PX = 10

# Every visible text: the font size of each element that holds text directly (HTML) and of each
# SVG text of the plotly figures, in CSS px as drawn.
TEXT_SIZES = r"""() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const e = node.parentElement;
    if (!node.textContent.trim() || !e || e.closest('script, style')) continue;
    const r = e.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    const size = parseFloat(getComputedStyle(e).fontSize);
    const svg = e.closest('svg');
    const scale = svg && svg.getScreenCTM ? Math.hypot(svg.getScreenCTM().a,
                                                        svg.getScreenCTM().b) : 1;
    out.push([node.textContent.trim().slice(0, 40), size * scale]);
  }
  return out;
}"""

# The tick labels of every log axis of every figure.
LOG_TICKS = r"""() => Array.from(document.querySelectorAll('.js-plotly-plot')).flatMap(gd =>
  Object.keys(gd._fullLayout).filter(k => /^[xy]axis\d*$/.test(k)
                                        && gd._fullLayout[k].type === 'log')
    .map(k => [gd.id, k, Array.from(gd.querySelectorAll(`g.${k[0]}${k.slice(5)}tick text`))
                           .map(t => t.textContent)]))"""

# The bullets of the answer callouts: where each item's marker box starts against the border.
BULLETS = r"""() => Array.from(document.querySelectorAll('ul.answer')).map(ul => {
  const u = ul.getBoundingClientRect(), border = parseFloat(getComputedStyle(ul).borderLeftWidth);
  return Array.from(ul.querySelectorAll('li')).map(li => li.getBoundingClientRect().left
                                                          - (u.left + border));
})"""

SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def _value(label):
    """The number a tick label says (10ⁿ read as a power), or None."""
    label = label.replace("−", "-").strip()
    if re.fullmatch(r"10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+", label):
        return 10.0 ** int(label[2:].translate(SUPERSCRIPT))
    try:
        return float(label.replace(",", ""))
    except ValueError:
        return None


def _readable(labels):
    """A log axis's labels, in order along the axis, say their values: every one a number and
    the numbers strictly monotone ("2, 1, 5, 2, 0.1, 5" says 2 down to 0.05 in mantissas)."""
    values = [_value(t) for t in labels]
    if not values or None in values:
        return False
    steps = [b - a for a, b in itertools.pairwise(values)]
    return all(s > 0 for s in steps) or all(s < 0 for s in steps)


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    subprocess.run([sys.executable, "-m", "ldpviz", "reproduce", "report", "--quick", "--out",
                    str(out)], cwd=ROOT, check=True, capture_output=True, timeout=600)
    return out / "reproduction.html"


def test_the_report_is_legible_at_1024_px(browser, quick_report):
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    try:
        page = context.new_page()
        page.goto(quick_report.as_uri(), timeout=120_000)
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot .main-svg')"
                               ".length >= 4", timeout=60_000)
        sizes = page.evaluate(TEXT_SIZES)
        small = sorted({(text, round(px, 1)) for text, px in sizes if px < MIN_TEXT_PX})
        assert sizes and not small, f"text under {MIN_TEXT_PX} px: {small[:20]}"
        axes = page.evaluate(LOG_TICKS)
        assert axes, "no log axis measured"
        for figure, axis, labels in axes:
            assert labels, f"{figure} {axis}: no tick labels"
            assert _readable(labels), (figure, axis, labels)
        offsets = [x for items in page.evaluate(BULLETS) for x in items]
        assert offsets and min(offsets) >= 24, f"bullets on the callout's border: {offsets}"
        print(f"\nreport at 1024 px: smallest text {min(px for _, px in sizes):.1f} px, "
              f"{len(axes)} log axes, bullets {min(offsets):.0f} px inside the border")
    finally:
        context.close()


def test_readable_labels_are_told_from_stray_mantissas():
    assert _readable(["0.05", "0.1", "0.2", "0.5", "1"]) and _readable(["10⁻³", "10⁻²", "0.1"])
    assert _readable(["1", "4", "1024"])  # the values that were run
    assert not _readable(["5", "0.1", "2", "5", "1", "2"])  # plotly's D2 labels
    assert not _readable(["1", "2", "x"]) and not _readable([])
