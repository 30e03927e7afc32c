"""Run one (extractor, dataset) job, or a sweep with -m: the checkout's entry point of
``boilerbench run`` (:mod:`boilerbench.commands.run`). See README.md.

python run.py extractor=bte dataset=cleaneval
python run.py -m extractor=bte,all_text dataset=cleaneval,l3s_gn1
"""

import sys

from boilerbench.commands.run import start

if __name__ == "__main__":
    start(sys.argv[1:])
