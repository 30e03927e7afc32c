"""Paper tables and figures from run folders: ``python -m boilerbench.reports [RUN_DIRS...] [--out DIR]``.

Reads only what runs wrote (``summary.json``, ``pages.csv``); imports nothing from the
extractors. See :mod:`boilerbench.reports.artefacts` for what is built and the command behind each one.
"""
