"""The engine that applies an extractor to pages, for the runner (``python run.py``),
``boilerbench extract`` and the Dask path alike.

- :mod:`boilerbench.engine.extraction`: safe extraction of one page: the size limit
  (``max_html_chars``), every failure as the page's error string in one format
  (:func:`boilerbench.errors.describe`), :class:`~boilerbench.engine.extraction.WorkerCrashed`
  and :class:`~boilerbench.engine.extraction.PageTimeout`;
- :mod:`boilerbench.engine.pool`: the pages in this process, or in forked worker processes that
  are replaced when one dies (its page run again, then failed) or runs past ``page_timeout_s``
  (its page failed as a timeout).

The per-page functions that use it: :func:`boilerbench.experiments.scoring.evaluate_page`
(extract and score) and :func:`boilerbench.page_rows.process` (an input page's output row, on
this machine or on a Dask worker).
"""
