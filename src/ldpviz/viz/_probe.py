"""The box an explorer is shown in, measured by the browser: its width, the height of the
screen it has to fit, and the height of what stands above its figures.

A tiny front-end probe watches the explorer's box (and the window) and reports, in CSS pixels:

* ``width``: the explorer's width;
* ``height``: the height it should fit in, that is the visible height of the page that scrolls
  it (JupyterLab's notebook panel, Voila's page), less what stands above it in a tab (the
  app's tab bar stays on screen) and a small margin;
* ``chrome``: the height of the title and, when the controls stand above the figures, of the
  controls and readout (what the figures do not get of ``height``);
* ``side``: whether the controls stood beside the figures when ``chrome`` was measured.
"""

from __future__ import annotations

import anywidget
import traitlets

# Each explorer widget (figure, probe) stamps the time it started: plotly's bundle
# (:mod:`._plotly_bundle`) waits for quiet before it evaluates its code.
STARTED = "window.__ldpvizStarted = performance.now();"

PROBE_ESM = """
export default {
  initialize() { STARTED },
  render({ model, el }) {
    el.style.cssText = "width: 100%; height: 0; overflow: hidden; margin: 0; padding: 0;";
    let timer = null, retry = null, seq = 0, tries = 0, observer = null;
    let sent = { width: 0, height: 0, chrome: 0, side: false };
    const post = () => {
      clearTimeout(retry);
      if (model.get("ack") === seq || tries > 60) return;
      tries += 1;
      model.set("width", sent.width);
      model.set("height", sent.height);
      model.set("chrome", sent.chrome);
      model.set("side", sent.side);
      model.set("seq", seq);
      model.save_changes();
      retry = setTimeout(post, 500);
    };
    const scroller = (box) => {  // the nearest ancestor that scrolls the explorer
      for (let e = box.parentElement; e && e !== document.documentElement; e = e.parentElement) {
        const overflow = getComputedStyle(e).overflowY;
        if ((overflow === "auto" || overflow === "scroll") && e.scrollHeight > e.clientHeight + 1)
          return e;
      }
      return null;
    };
    let watched = null;
    const measure = () => {
      const box = el.closest(".ldpviz-explorer");
      if (!box) return;
      if (watched !== box) { observer.observe(box); watched = box; }  // in the page by now
      const figures = box.querySelector(".ldpviz-figures");
      const body = box.querySelector(".ldpviz-body");
      const b = box.getBoundingClientRect();
      const width = Math.floor(b.width);
      if (width <= 0) return;
      const s = scroller(box);
      const visible = s ? Math.min(s.clientHeight, window.innerHeight) : window.innerHeight;
      const origin = s ? s.getBoundingClientRect().top - s.scrollTop : -window.scrollY;
      const tab = box.closest(".widget-tab");  // the app: its tab bar stays on screen
      const reserve = tab ? b.top - origin + 16 : 8;
      const height = Math.max(0, Math.floor(visible - reserve));
      const style = getComputedStyle(box);
      const chrome = figures ? Math.ceil(figures.getBoundingClientRect().top - b.top
        + parseFloat(style.paddingBottom) + parseFloat(style.borderBottomWidth)) : 0;
      const side = !!body && getComputedStyle(body).flexDirection.startsWith("row");
      // A scroll bar that comes and goes with the figure's height would make the figure
      // oscillate between two widths: growing by less than 24 px is ignored.
      const grew = width > sent.width && sent.width && width - sent.width < 24;
      const changed = (width !== sent.width && !grew) || Math.abs(height - sent.height) >= 4
        || Math.abs(chrome - sent.chrome) >= 4 || side !== sent.side;
      if (!changed) return;
      sent = { width: grew ? sent.width : width, height, chrome, side };
      seq = Math.max(seq, model.get("ack")) + 1; tries = 0;
      post();
    };
    const schedule = () => { clearTimeout(timer); timer = setTimeout(measure, 60); };
    observer = new ResizeObserver(schedule);
    observer.observe(el);
    window.addEventListener("resize", schedule);
    return () => {
      observer.disconnect(); window.removeEventListener("resize", schedule);
      clearTimeout(timer); clearTimeout(retry);
    };
  }
};
""".replace("STARTED", STARTED)


class WidthProbe(anywidget.AnyWidget):
    """An invisible element that reports the size of the explorer it sits in (see above).

    A change is sent after 60 ms of quiet. A report is numbered (``seq``) and sent again until
    the kernel acknowledges it (``ack``): a message sent before the page's connection to the
    kernel is up would otherwise be lost.
    """

    _esm = PROBE_ESM
    width = traitlets.Int(0).tag(sync=True)
    height = traitlets.Int(0).tag(sync=True)
    chrome = traitlets.Int(0).tag(sync=True)
    side = traitlets.Bool(False).tag(sync=True)
    seq = traitlets.Int(0).tag(sync=True)
    ack = traitlets.Int(0).tag(sync=True)
    last_width = 0  # the last width any probe reported: the first guess for a new figure
    last_height = 0  # the same for the height

    @traitlets.observe("seq")
    def _acknowledge(self, change):
        self.ack = change["new"]
