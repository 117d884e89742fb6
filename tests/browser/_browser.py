"""What the browser tests share: the repository root, a static file server on 127.0.0.1 and
JavaScript probes of the page."""

import functools
import http.server
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

from ldpviz.viz._arrange import TRACK, WIDE_TRACK

ROOT = Path(__file__).resolve().parents[2]

# The MIME types a browser insists on for WebAssembly and JavaScript modules (JupyterLite).
STATIC_TYPES = {".wasm": "application/wasm", ".mjs": "text/javascript",
                ".js": "text/javascript", ".json": "application/json",
                ".whl": "application/octet-stream", ".zip": "application/zip",
                ".ipynb": "application/json"}


class _StaticHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map: ClassVar = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                                **STATIC_TYPES}

    def log_message(self, *args):  # quiet: the tests report what matters
        pass


@contextmanager
def serve_static(folder):
    """Serve the files of ``folder`` on 127.0.0.1 (a free port) in a thread; yields the base
    URL. A request the page makes for anything else shows up as one leaving 127.0.0.1."""
    handler = functools.partial(_StaticHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()

# Visible plotly plots, with how many traces and data points each one draws.
DRAWN_PLOTS = """(root) => Array.from((root || document).querySelectorAll('.js-plotly-plot'))
  .filter(gd => gd.offsetParent !== null)
  .map(gd => ({
    traces: (gd.data || []).length,
    points: (gd.data || []).reduce((n, t) => n + ((t.z || t.y || t.x || []).length || 0), 0),
    svg: gd.querySelectorAll('.main-svg').length,
    width: gd.clientWidth,
  }))"""

# What the visible plots show (data, marker lines, title): a frozen plot keeps its signature.
PLOT_SIGNATURE = """(root) => Array.from((root || document).querySelectorAll('.js-plotly-plot'))
  .filter(gd => gd.offsetParent !== null)
  .map(gd => JSON.stringify([gd.data, gd.layout.shapes, gd.layout.title]))
  .join('|')"""

# Every visible plotly figure measured with the page's DOM: the figure against the box it is
# shown in (the nearest ipywidgets box, else the output area) and the viewport, and every text
# element (titles, panel titles and notes, axis titles, tick labels, legends, colour bars)
# against the figure, against each other and against the plot areas. Returns one record per
# figure: its size, its box's size, whether it is "wide" (uses the box's width) and a list of
# problems (empty when the figure is whole and legible).
FIGURE_LAYOUT = r"""(root) => {
  const TOL = 1.5;
  const rect = (e) => { const r = e.getBoundingClientRect();
    return {x0: r.left, x1: r.right, y0: r.top, y1: r.bottom, w: r.width, h: r.height}; };
  const r1 = (b) => [b.x0, b.y0, b.x1, b.y1].map(Math.round).join(',');
  const inside = (a, b) => a.x0 >= b.x0 - TOL && a.x1 <= b.x1 + TOL
                        && a.y0 >= b.y0 - TOL && a.y1 <= b.y1 + TOL;
  const overlap = (a, b) => Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) - TOL)
                          * Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) - TOL);
  const shown = (e) => { const s = getComputedStyle(e);
    if (s.display === 'none' || s.visibility === 'hidden' || +s.opacity === 0) return false;
    const r = e.getBoundingClientRect(); return r.width > 0.5 && r.height > 0.5; };
  const label = (e) => (e.textContent || '').trim().slice(0, 40);
  const viewport = document.documentElement.clientWidth;
  const results = [];
  for (const gd of (root || document).querySelectorAll('.js-plotly-plot')) {
    if (gd.offsetParent === null) continue;
    const container = gd.querySelector('.svg-container');
    if (!container) continue;
    const fig = rect(container);
    const holder = gd.parentElement.closest('.widget-box, .jp-OutputArea-output');
    const box = rect(holder || document.body);
    const problems = [];
    if (fig.x0 < box.x0 - TOL || fig.x1 > box.x1 + TOL)
      problems.push(`figure ${r1(fig)} wider than its box ${r1(box)}`);
    if (fig.x1 > viewport + TOL)
      problems.push(`figure ends at ${Math.round(fig.x1)}, beyond the viewport ${viewport}`);
    // what is drawn: the plot areas, and every label, which must stay inside the figure,
    // off the plot areas and off every other label
    const areas = Array.from(gd.querySelectorAll('.nsewdrag, .gl-container > div'))
      .filter(shown).map(rect);
    const items = [];
    const add = (e, kind) => { if (shown(e)) items.push({b: rect(e), kind, text: label(e)}); };
    gd.querySelectorAll('.infolayer .gtitle').forEach(e => add(e, 'title'));
    gd.querySelectorAll('.annotation').forEach(e => add(e, 'panel title or note'));
    gd.querySelectorAll('.infolayer g[class$="title"]').forEach(e => {
      if (/^g-[xy]\d*title$/.test(e.getAttribute('class'))) add(e, 'axis title'); });
    gd.querySelectorAll('.xaxislayer-above g[class$="tick"] text')
      .forEach(e => add(e, 'tick label'));
    gd.querySelectorAll('.yaxislayer-above g[class$="tick"] text')
      .forEach(e => add(e, 'tick label'));
    gd.querySelectorAll('.infolayer > g[class^="legend"]').forEach(e => add(e, 'legend'));
    gd.querySelectorAll('.infolayer .colorbar').forEach(e => add(e, 'colour bar'));
    for (const item of items) {
      const what = `${item.kind} "${item.text}" ${r1(item.b)}`;
      if (!inside(item.b, fig)) problems.push(`${what} clipped by the figure ${r1(fig)}`);
      for (const area of areas)
        if (overlap(item.b, area) > 0) problems.push(`${what} overlaps a plot area ${r1(area)}`);
    }
    for (let i = 0; i < items.length; i++)
      for (let j = i + 1; j < items.length; j++)
        if (overlap(items[i].b, items[j].b) > 0)
          problems.push(`${items[i].kind} "${items[i].text}" overlaps `
                        + `${items[j].kind} "${items[j].text}"`);
    results.push({figure: [Math.round(fig.w), Math.round(fig.h)], box: Math.round(box.w),
                  wide: fig.w >= 0.85 * box.w, problems});
  }
  return results;
}"""

# Every visible explorer (.ldpviz-explorer: a title, the controls with their readout, the
# figures): whether it scrolls sideways (content wider than the box makes a scroll bar in a
# browser with classic scroll bars), its readout (the HTML closing the controls), which must span
# the controls and wrap its text rather than push them wider, and the length of each slider's
# track (the grid's, and the wide ones on a row of their own). Returns one record per explorer
# with a list of problems.
EXPLORER_BOXES = r"""(root) => {
  const shown = (e) => e.offsetParent !== null;
  return Array.from((root || document).querySelectorAll('.ldpviz-explorer')).filter(shown)
    .map(b => {
      const problems = [];
      if (b.scrollWidth > b.clientWidth + 1)
        problems.push(`scrolls sideways: ${b.scrollWidth} px of content in ${b.clientWidth} px`);
      const controls = b.querySelector('.ldpviz-controls');
      const readout = controls && controls.lastElementChild;
      const span = controls ? controls.getBoundingClientRect().width : 0;
      const width = readout ? readout.getBoundingClientRect().width : 0;
      if (!readout || !readout.classList.contains('widget-html'))
        problems.push('no readout closing the controls');
      else if (width < span - 8)
        problems.push(`readout ${Math.round(width)} px wide under ${Math.round(span)} px ` +
                      'of controls');
      else if (readout.scrollWidth > readout.clientWidth + 1)
        problems.push(`readout text ${readout.scrollWidth} px wide, not wrapped in ` +
                      `${readout.clientWidth} px`);
      const tracks = Array.from(b.querySelectorAll('.widget-slider .slider-container'))
        .filter(shown).map(t => ({
          wide: !t.closest('.widget-gridbox'),
          width: Math.round(t.getBoundingClientRect().width),
          label: (t.closest('.widget-slider').querySelector('label') || {}).textContent}));
      return {box: b.clientWidth, readout: Math.round(width), tracks, problems};
    });
}"""

# Each visible explorer scrolled to the top of what scrolls it (the app: not scrolled, its tab
# bar stays in view): its box, its controls and its first figure against the part of the page
# the screen shows (the scroller's box within the window). Returns one record per explorer.
ONE_SCREEN = r"""([root, scroll]) => {
  const rect = (e) => { const r = e.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom].map(Math.round); };
  const scroller = (box) => {
    for (let e = box.parentElement; e && e !== document.documentElement; e = e.parentElement) {
      const o = getComputedStyle(e).overflowY;
      if ((o === 'auto' || o === 'scroll') && e.scrollHeight > e.clientHeight + 1) return e;
    }
    return null;
  };
  return Array.from((root || document).querySelectorAll('.ldpviz-explorer'))
    .filter(b => b.offsetParent !== null).map(b => {
      const s = scroller(b);
      if (scroll) b.scrollIntoView({block: 'start'});
      else if (s) s.scrollTop = 0; else window.scrollTo(0, 0);
      const view = s ? rect(s) : [0, 0, innerWidth, innerHeight];
      const visible = [Math.max(view[0], 0), Math.max(view[1], 0),
                       Math.min(view[2], innerWidth), Math.min(view[3], innerHeight)];
      const figure = b.querySelector('.js-plotly-plot .svg-container');
      return {title: (b.querySelector('h3') || {}).textContent, visible, box: rect(b),
              controls: rect(b.querySelector('.ldpviz-controls')),
              figure: figure ? rect(figure) : null};
    });
}"""

# The sizes the figures are checked at (width x height of the browser's viewport): a
# laptop, a projector and a desktop screen.
VIEWPORTS = [(1366, 768), (1024, 768), (1920, 1080)]


def check_layout(page, where, root=None, timeout=30.0):
    """Measure every visible figure (under ``root``) once the figures have followed their box.

    A resize reaches the kernel, which lays the figures out again, and on a busy machine a
    relayout can land at any moment: measure until every figure is as wide as its box and
    nothing FIGURE_LAYOUT or EXPLORER_BOXES finds is wrong, and fail with what is still wrong
    after ``timeout`` s (a real fault persists; a layout caught mid-flight does not). Returns
    the figures' measurements.
    """
    handle = root.element_handle() if root is not None else None
    deadline = time.monotonic() + timeout
    while True:
        results = page.evaluate(FIGURE_LAYOUT, handle)
        problems = _layout_problems(results, page.evaluate(EXPLORER_BOXES, handle))
        if (results and not problems) or time.monotonic() > deadline:
            break
        time.sleep(0.25)
    assert results, f"{where}: no visible figure"
    assert not problems, f"{where}:\n  " + "\n  ".join(problems)
    return results


def _layout_problems(results, explorers):
    """Every problem of the figures and the explorers around them, as sentences."""
    problems = [f"figure {i + 1} ({r['figure'][0]} x {r['figure'][1]} px in a "
                f"{r['box']} px box): {p}" for i, r in enumerate(results) for p in r["problems"]]
    problems += [f"figure {i + 1} is {r['figure'][0]} px wide in a {r['box']} px box "
                 "(under 85%)" for i, r in enumerate(results) if not r["wide"]]
    problems += [f"explorer {i + 1} ({r['box']} px): {p}" for i, r in enumerate(explorers)
                 for p in r["problems"]]
    problems += [f"explorer {i + 1}: the track of slider {t['label']!r} is {t['width']} px, "
                 f"shorter than the {need} px the explorers are designed for" for i, r in
                 enumerate(explorers) for t in r["tracks"]
                 if t["width"] < (need := WIDE_TRACK if t["wide"] else TRACK) - 2]
    return problems


def _off_screen(record):
    """What of an explorer the screen does not show (empty when box, controls and figure are
    all in view)."""
    x0, y0, x1, y1 = record["visible"]
    out = []
    for what in ("box", "controls", "figure"):
        r = record[what]
        if r is None:
            out.append(f"no {what}")
        elif r[0] < x0 - 1 or r[1] < y0 - 1 or r[2] > x1 + 1 or r[3] > y1 + 1:
            out.append(f"{what} {r} outside the screen's {record['visible']}")
    return out


def check_one_screen(page, where, root=None, scroll=True, timeout=30.0):
    """Each visible explorer, scrolled to the top of the page part that scrolls it (or, with
    ``scroll=False``, the page as it opens), shows its box, its controls and its main figure
    within the screen: an instructor moves a slider and sees the picture change without
    scrolling. The figures follow the screen's height through the kernel: wait up to
    ``timeout`` s. Returns the explorers' heights."""
    handle = root.element_handle() if root is not None else None
    deadline = time.monotonic() + timeout
    while True:
        records = page.evaluate(ONE_SCREEN, [handle, scroll])
        problems = [f"{r['title']}: {p}" for r in records for p in _off_screen(r)]
        if (records and not problems) or time.monotonic() > deadline:
            break
        time.sleep(0.25)
    assert records, f"{where}: no explorer"
    assert not problems, f"{where}, explorers off the screen:\n  " + "\n  ".join(problems)
    return [r["box"][3] - r["box"][1] for r in records]


def resize(page, width, height=768):
    """Resize the viewport and wait until the page has taken the new size."""
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function("(w) => window.innerWidth === w", arg=width, timeout=10_000)
    time.sleep(0.2)  # the resize reaches the widgets' observers
