"""The reproduction layer: the experiment runner (``experiments``), the paper's figures and
tables as specifications (``paper``) and the what-if analysis on your own data (``whatif``)."""
