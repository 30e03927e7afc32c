"""The documentation site and the README, built from the results store (``reports/results/``).

Pages in ``docs/`` hold prose and directives (HTML comments); :mod:`.render` replaces each
directive by what the store holds when the site is built (``mkdocs build``, through
:mod:`.hooks`), and :mod:`.check` refuses a page that quotes a figure the store does not hold.
``python -m boilerbench.reports.site readme`` rewrites the README's headline table the same way.
"""
