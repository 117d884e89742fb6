"""Slider-update time of every explorer at its default size (kernel side: recompute + redraw).

Target: median under 100 ms per explorer, so sliders feel live. Each control is moved to a few
values; the time is that of the explorer's own update (``last_update_seconds``). The browser's
drawing time comes on top and is measured by the browser tests.
"""

import ipywidgets as W
import numpy as np

from ldpviz.viz import widgets

TARGET_MS = 100.0
# The comparison explorer (notebook 06) refits 26 models on two samples per new setting, so
# it gets its own budget; settings already visited are cached and instant.
TARGETS_MS = {"comparison_explorer": 250.0}


def _values(widget, count=4):
    if isinstance(widget, (W.Dropdown, W.ToggleButtons, W.SelectionSlider)):
        return [o[1] if isinstance(o, tuple) else o for o in widget.options][:count]
    grid = np.linspace(widget.min, widget.max, count + 1)[1:]
    if isinstance(widget, W.FloatLogSlider):  # min and max are exponents
        return (widget.base**grid).tolist()
    return grid.astype(type(widget.value)).tolist()


def main():
    explorers = [widgets.partition_explorer, widgets.surface_explorer, widgets.lambda_explorer,
                 widgets.tradeoff_explorer, widgets.mechanism_explorer, widgets.bcdp_explorer,
                 widgets.comparison_explorer]
    for make in explorers:
        explorer = make()
        defaults = {name: w.value for name, w in explorer.controls.items()}
        times = []
        for name, widget in explorer.controls.items():
            for value in _values(widget):
                if name == "y_axis" and value == explorer.controls["x_axis"].value:
                    continue
                widget.value = value
                times.append(explorer.last_update_seconds * 1e3)
            widget.value = defaults[name]  # one slider at a time, from the defaults
        median, worst = float(np.median(times)), float(np.max(times))
        target = TARGETS_MS.get(make.__name__, TARGET_MS)
        print(f"{make.__name__:20s} median {median:6.1f} ms  worst {worst:6.1f} ms  "
              f"ratio to its {target:.0f} ms target {median / target:4.2f}  "
              f"{'ok' if median < target else 'ABOVE TARGET'}")


if __name__ == "__main__":
    main()
