"""``python -m boilerbench COMMAND ...``: the ``boilerbench`` command (:mod:`boilerbench.commands`)."""

import sys

from boilerbench.commands import main

sys.exit(main())
