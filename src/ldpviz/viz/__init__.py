"""The visual layer: what the explorers show (``views``), static figures (``plots``) and the
live ipywidgets explorers (``widgets``). It draws what the library computes; nothing here is
needed to fit a model."""
