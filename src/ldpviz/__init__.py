"""ldpviz: semi-feature local differential privacy you can see and touch.

Three layers (docs/architecture.md): the library (mechanisms, masks, partition, estimators,
baselines, classification, theory, datasets, and ``ldpviz.bcdp``) computes; ``ldpviz.viz``
shows it (views, static plots, live explorers); ``ldpviz.reproduce`` runs the paper and the
what-if analysis. See README.md for the course and the two commands. Every fit checks what it
will build against one resource budget (:func:`get_config`, :func:`set_config`,
:func:`config_context`) before allocating it.
"""

from . import _legacy, _site_packages
from ._config import config_context, get_config, set_config

_legacy.install()
_site_packages.install()  # Pyodide (JupyterLite) only

__all__ = ["AdHistOfTree", "HistOfTree", "PrivacyWarning", "__version__", "config_context",
           "get_config", "set_config"]
__version__ = "0.1.0"


def __getattr__(name):
    """The estimators and PrivacyWarning, imported on first use (PEP 562): ``import ldpviz``
    and ``python -m ldpviz --help`` do not load numpy, scipy and scikit-learn;
    ``from ldpviz import HistOfTree`` does, as before."""
    if name == "HistOfTree":
        from .estimators import HistOfTree as value
    elif name == "AdHistOfTree":
        from .adhistoftree import AdHistOfTree as value
    elif name == "PrivacyWarning":
        from ._validation import PrivacyWarning as value
    else:
        raise AttributeError(f"module 'ldpviz' has no attribute {name!r}")
    globals()[name] = value  # the next access is an ordinary attribute
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
