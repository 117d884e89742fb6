"""ldpviz: semi-feature local differential privacy you can see and touch.

Three layers (docs/architecture.md): the library (mechanisms, masks, partition, estimators,
baselines, classification, theory, datasets, and ``ldpviz.bcdp``) computes; ``ldpviz.viz``
shows it (views, static plots, live explorers); ``ldpviz.reproduce`` runs the paper and the
what-if analysis. See README.md for the course and the two commands. Every fit checks what it
will build against one resource budget (:func:`get_config`, :func:`set_config`,
:func:`config_context`) before allocating it.
"""

from . import _legacy
from ._config import config_context, get_config, set_config
from ._validation import PrivacyWarning
from .adhistoftree import AdHistOfTree
from .estimators import HistOfTree

_legacy.install()

__all__ = ["AdHistOfTree", "HistOfTree", "PrivacyWarning", "__version__", "config_context",
           "get_config", "set_config"]
__version__ = "0.1.0"
