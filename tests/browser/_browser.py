"""What the browser tests share: the repository root and JavaScript probes of the page."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

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
