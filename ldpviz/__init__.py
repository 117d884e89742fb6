"""ldpviz: semi-feature local differential privacy you can see and touch.

The package computes (mechanisms, partitions, estimators, theory); ``ldpviz.plots`` draws;
``ldpviz.widgets`` wires sliders. See README.md for the course and the two commands.
"""

from ._validation import PrivacyWarning
from .estimators import AdHistOfTree, HistOfTree

__all__ = ["AdHistOfTree", "HistOfTree", "PrivacyWarning", "__version__"]
__version__ = "0.1.0"
