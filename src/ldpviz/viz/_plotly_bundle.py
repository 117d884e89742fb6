"""plotly's widget code, loaded once per page (the explorers' figures share it).

plotly's FigureWidget ships its whole front-end bundle (5 MB: plotly.js and the widget) with
every figure, and the page evaluates it once per figure. anywidget gives a widget 2 s to load
and initialize: a page that loads several figures at once (a notebook in Voila) or a busy
machine misses that, and such a figure silently ignores every later update from the kernel.
Here the bundle travels once, in one invisible widget (PlotlyBundle) that puts plotly's
widget factory on ``window``; each Figure carries a few lines that initialize at once and
draw as soon as the factory is there.
"""

from __future__ import annotations

import re
from pathlib import Path

import anywidget
import plotly
import traitlets

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
""".replace("PLOTLY_KEY", PLOTLY_KEY)


class PlotlyBundle(anywidget.AnyWidget):
    """The invisible widget that brings plotly's widget code to the page, once per kernel.

    The code travels as a trait, not as the widget's own module: the module is a few lines
    that start loading it and return, so this widget too is ready well within anywidget's 2 s.
    """

    _esm = """
    export default {
      initialize({ model }) {
        const key = model.get("key");
        const loading = (window.__ldpvizPlotlyLoading = window.__ldpvizPlotlyLoading || {});
        if (loading[key]) return;  // another kernel on this page brought the same version
        loading[key] = true;
        const url = URL.createObjectURL(new Blob([model.get("code")], { type: "text/javascript" }));
        import(url).finally(() => URL.revokeObjectURL(url));
      },
      render() {},
    };
    """
    code = traitlets.Unicode(SHARED_BUNDLE or "").tag(sync=True)
    key = traitlets.Unicode(PLOTLY_KEY).tag(sync=True)
    instance = None

    @classmethod
    def shared(cls):
        if cls.instance is None:
            cls.instance = cls()
        return cls.instance
