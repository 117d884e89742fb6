"""plotly's widget code, loaded once per page (the explorers' figures share it).

plotly's FigureWidget ships its whole front-end bundle (5 MB: plotly.js and the widget) with
every figure, and the page evaluates it once per figure. anywidget gives a widget 2 s to load
and initialize: a page that loads several figures at once (a notebook in Voila) or a busy
machine misses that, and such a figure silently ignores every later update from the kernel.
Here the bundle travels once, in one invisible widget (PlotlyBundle) that puts plotly's
widget factory on ``window``; each Figure carries a few lines that initialize at once and
draw as soon as the factory is there.

The code is not part of the widget's state: a page that opens fetches the state of every
widget through one message that ipywidgets waits 4 s for, and on a busy machine 5 MB made it
miss that (the page then asked widget by widget, twice the work). The bundle asks the kernel
for the code once its model exists, and evaluates it when no explorer widget has started for
0.4 s: evaluating 5 MB holds the page for a second or more (several on a busy machine), which
would make a widget starting meanwhile miss anywidget's 2 s.
"""

from __future__ import annotations

import re
from pathlib import Path

import anywidget
import plotly
import traitlets

from ._probe import STARTED

PLOTLY_KEY = f"plotly-{plotly.__version__}"
_BUNDLE = Path(plotly.__file__).parent / "package_data" / "widgetbundle.js"
_EXPORT = re.compile(r"export\s*\{([^{}]*\bas\s+default\b[^{}]*)\}\s*;?")


def _shared_bundle():
    """plotly's widget bundle, exporting its factory on ``window`` (None if its last export
    statement cannot be read: figures then carry plotly's own bundle)."""
    text = _BUNDLE.read_text(encoding="utf-8")
    matches = list(_EXPORT.finditer(text))
    if not matches:
        return None
    names = dict(reversed(part.split(" as ")) for part in
                 (p.strip() for p in matches[-1].group(1).split(",")) if " as " in part)
    if "default" not in names:
        return None
    share = (f';(window.__ldpvizPlotly = window.__ldpvizPlotly || {{}})["{PLOTLY_KEY}"] = '
             f'{names["default"]};\nexport default {{ render() {{}} }};\n')
    return text[:matches[-1].start()] + share + text[matches[-1].end():]


SHARED_BUNDLE = _shared_bundle()

FIGURE_ESM = """
const loaded = new Promise((resolve) => {
  const look = () => {
    const factory = (window.__ldpvizPlotly || {})["PLOTLY_KEY"];
    factory ? resolve(factory) : setTimeout(look, 20);
  };
  look();
});
export default () => {
  let widget = null, started = null;
  return {
    initialize(context) {  // at once: plotly's own initialize runs when its code is there
      STARTED
      started = loaded.then((factory) => {
        widget = factory();
        return widget.initialize(context);
      });
    },
    async render(context) {
      await started;
      return widget.render(context);
    },
  };
};
""".replace("PLOTLY_KEY", PLOTLY_KEY).replace("STARTED", STARTED)

BUNDLE_ESM = """
export default {
  initialize({ model }) {
    const key = model.get("key");
    const loading = (window.__ldpvizPlotlyLoading = window.__ldpvizPlotlyLoading || {});
    const there = () => !!(window.__ldpvizPlotly || {})[key];
    const evaluate = (code) => {  // when no explorer widget started for 0.4 s
      if (performance.now() - (window.__ldpvizStarted || 0) < 400)
        return setTimeout(() => evaluate(code), 100);
      const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
      import(url).finally(() => URL.revokeObjectURL(url));
    };
    const ask = () => {
      model.on("msg:custom", (msg, buffers) => {
        if (msg && msg.key === key && buffers && buffers.length && !there()) evaluate(buffers[0]);
      });
      model.send({ request: "code" });
    };
    if (!loading[key]) {
      loading[key] = true;
      ask();
    } else {  // another kernel on this page brings the same version; ask if it never does
      setTimeout(() => { if (!there()) ask(); }, 20000);
    }
  },
  render() {},
};
"""


class PlotlyBundle(anywidget.AnyWidget):
    """The invisible widget that brings plotly's widget code to the page, once per kernel.

    The code travels in a message the page asks for, not in the widget's state (see above);
    the widget's module is a few lines, so this widget too is ready well within anywidget's
    2 s.
    """

    _esm = BUNDLE_ESM
    key = traitlets.Unicode(PLOTLY_KEY).tag(sync=True)
    instance = None

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.on_msg(self._send_code)

    def _send_code(self, _widget, content, _buffers):
        if isinstance(content, dict) and content.get("request") == "code":
            self.send({"key": PLOTLY_KEY}, buffers=[CODE])

    @classmethod
    def shared(cls):
        if cls.instance is None:
            cls.instance = cls()
        return cls.instance


CODE = (SHARED_BUNDLE or "").encode("utf-8")
