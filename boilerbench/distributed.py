"""``boilerbench extract --cluster ADDRESS``: extraction over many machines with Dask distributed.

Why Dask: the work is a plain map over independent pages, which Dask's scheduler runs with a
small overhead per task (measured by ``benchmarks/cluster_extract.py``); the same code runs on a
laptop (``LocalCluster``), on Slurm / PBS / Kubernetes (dask-jobqueue, dask-kubernetes) and on a
``dask scheduler`` / ``dask worker`` pair started by hand; and it is a pure-Python install, where
Ray's wheel is about 70 MB with its own object store and dashboard.

Pages are sent in batches (one task per ``batch`` pages, so the per-task overhead is shared);
each worker loads the extractor once (a model file must be readable on every worker at the
same path: a shared file system). At most ``window`` batches per worker are in flight, so an
input of any size streams through bounded memory, and rows come back in input order. When a
worker dies mid-run, the scheduler runs its batches again on the others (Dask's
``distributed.scheduler.allowed-failures``, 3 by default); a batch that kills every worker it
is given ends as ``KilledWorker``, and each of its pages is reported with that error. No page
is lost. Each page is made into its row by the per-page function of a local run
(:func:`boilerbench.page_rows.process`); a per-page time limit (``--page-timeout``) is not
enforced here: the command line refuses it with ``--cluster``. A scheduler that cannot be
reached within ``connect_timeout`` seconds (:data:`CONNECT_TIMEOUT_S`) is one
:class:`ClusterUnreachableError` (the command line's one-line error, exit status 2).
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any

from boilerbench.errors import BoilerbenchError, import_optional
from boilerbench.page_rows import Item, Job, failed_row, load_extractor, process

#: Seconds to wait for the scheduler to answer (Dask's own default).
CONNECT_TIMEOUT_S = 30.0


class ClusterUnreachableError(BoilerbenchError):
    """No Dask scheduler answered at the address given."""


@functools.lru_cache(maxsize=4)
def _worker_extractor(extractor: str | None, model: str | None, options: tuple[str, ...]) -> Any:
    return load_extractor(extractor, model, options)


def extract_batch(
    items: list[Item],
    extractor: str | None,
    model: str | None,
    options: tuple[str, ...] = (),
    outputs: dict | None = None,
) -> list[dict]:
    """The task: the rows of a batch of items (on a worker), by the per-page function of a local
    run (:func:`boilerbench.page_rows.process`); ``outputs`` says whether rows carry markdown and
    metadata (``{"markdown": bool, "metadata": bool}``)."""
    job = Job(_worker_extractor(extractor, model, options), extractor or "the model", **(outputs or {}))
    return [process(item, job) for item in items]


def run_on_cluster(
    items: Iterable,
    address: Any,
    extractor: str | None,
    model: str | None,
    options: tuple[str, ...] = (),
    outputs: dict | None = None,
    batch: int = 16,
    window: int = 4,
    connect_timeout: float | None = None,
) -> Iterator[dict]:
    """The rows of ``items`` in input order, extracted on the Dask cluster at ``address`` (a
    scheduler address such as ``tcp://host:8786``, or a ``distributed.Client``) by ``extractor``
    with ``options`` or the ``model`` file (:func:`boilerbench.page_rows.load_extractor`)."""
    distributed = import_optional("distributed", "dask[distributed]", 'install it with: pip install -e ".[dask]"')
    if isinstance(address, distributed.Client):
        client = address
    else:
        try:
            client = distributed.Client(address, timeout=connect_timeout or CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError, ValueError) as err:
            raise ClusterUnreachableError(f"no Dask scheduler answered at {address}: {err}") from None
    try:
        in_flight = max(1, window * max(1, len(client.scheduler_info()["workers"])))
        iterator = iter(items)
        queue: deque = deque()
        while True:
            while len(queue) < in_flight and (chunk := list(islice(iterator, batch))):
                queue.append(
                    (chunk, client.submit(extract_batch, chunk, extractor, model, options, outputs, pure=False))
                )
            if not queue:
                return
            chunk, future = queue.popleft()
            try:
                rows = future.result()
            except Exception as err:  # KilledWorker, or a worker that cannot import the project
                rows = [failed_row(item, err) for item in chunk]
            yield from rows
    finally:
        if client is not address:
            client.close()
