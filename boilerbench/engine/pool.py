"""The worker pool: a task over a stream of pages in worker processes that live as long as the
stream and are replaced when they die or overrun the time limit.

Workers are forked, so they inherit what the parent set up before (the fitted extractor, the
pages it has already loaded) without pickling it. Each is handed one payload at a time over its
own pipe (a page index, or a page's bytes read after the fork) and sends the result back
(pickled by a child of this process: trusted). The workers are forked once for the whole
stream, not once per batch: a fresh fork pays again for the pages of memory it copies on first
write and for what each extractor loads lazily on its first page. The parent hands a page to
the first idle worker, so no worker waits for the slowest page of a batch. Each worker computes
on one thread (torch, BLAS: :func:`one_thread`), so that N workers keep N cores busy, and ignores
Ctrl-C (the parent kills the workers and lets the interrupt go on).

- A worker that dies (a segfault in a C parser, the kernel's out-of-memory killer, SIGKILL) is
  replaced by a fresh one and the page it was on is run again; when that page's worker dies a
  second time, the page is ``failed`` with :class:`~boilerbench.engine.extraction.WorkerCrashed`.
- A page still running ``page_timeout_s`` seconds after it was handed out: its worker is killed
  (SIGKILL: an extractor stuck in C code ignores anything gentler) and replaced, and the page
  is ``failed`` with :class:`~boilerbench.engine.extraction.PageTimeout`; it is not run again
  (it would take as long).

No page is lost and the other pages go on. Threads could do neither: a thread cannot be killed,
and a dying C extension takes every thread of its process with it.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import signal
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from boilerbench.engine.extraction import PageTimeout, WorkerCrashed
from boilerbench.errors import describe

log = logging.getLogger(__name__)
T = TypeVar("T")
P = TypeVar("P")

#: Deaths of its worker after which a page is failed (the first may be another process's fault:
#: the out-of-memory killer picks the largest process, not the guilty one).
DEATHS_PER_PAGE = 2


def one_thread() -> None:
    """Compute on one thread (OpenMP, torch): one per worker process, so N workers keep N cores
    busy. torch reads ``OMP_NUM_THREADS`` when it is first imported; one already imported is
    pinned here (importing it here would cost every fresh worker seconds)."""
    os.environ["OMP_NUM_THREADS"] = "1"
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def can_fork() -> bool:
    """Whether this platform has the fork start method that the workers need."""
    return "fork" in multiprocessing.get_all_start_methods()


def _serve(task: Callable[[Any], Any], conn: Connection, workers: list[_Worker]) -> None:
    """A worker's life: compute ``task(payload)`` for each payload received, until told to stop
    or until the parent is gone. It first closes the parent's ends of every worker's pipe, its own
    included, inherited by the fork: held open here, they would hide the parent's exit."""
    for worker in workers:
        worker.conn.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    one_thread()
    while (received := _next(conn)) is not None:
        try:
            message: tuple[bool, Any] = (True, task(received[0]))
        except Exception as err:  # a bug in the task, not a page's error: the parent raises it
            message = (False, err)
        try:
            conn.send(message)
        except Exception as err:  # a result or an exception that cannot be pickled
            conn.send((False, RuntimeError(f"the worker could not send its result: {type(err).__name__}: {err}")))


def _next(conn: Connection) -> tuple[Any] | None:
    """The next payload to compute (in a 1-tuple: a payload may be None); None when told to stop
    or when the parent has gone."""
    try:
        received: tuple[Any] | None = conn.recv()
    except (EOFError, OSError):
        return None
    return received


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    position: int | None = None
    payload: Any = None
    started: float = 0.0

    def give(self, position: int, payload: Any) -> None:
        self.position, self.payload, self.started = position, payload, time.monotonic()
        self.conn.send((payload,))

    def free(self) -> None:
        self.position, self.payload = None, None

    def receive(self) -> tuple[bool, Any] | None:
        """The result of its page, or None when it died before sending one."""
        try:
            return self.conn.recv() if self.conn.poll() else None
        except (EOFError, OSError):
            return None

    def stop(self) -> None:
        """End it: politely when idle, by SIGKILL when busy or deaf."""
        if self.process.pid is None:  # interrupted before it started
            self.conn.close()
            return
        if self.position is None and self.process.is_alive():
            try:
                self.conn.send(None)
            except OSError:
                pass
            self.process.join(timeout=1.0)
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()


def _start(task: Callable[[Any], Any], workers: list[_Worker]) -> None:
    """Fork a worker into ``workers``: listed before it starts, so that a Ctrl-C at any moment
    leaves no worker that the parent does not stop (daemonic, too: ended at exit whatever happens)."""
    context = multiprocessing.get_context("fork")
    here, there = context.Pipe()
    process = context.Process(target=_serve, args=(task, there, workers), name="boilerbench-worker", daemon=True)
    workers.append(_Worker(process, here))
    # Ctrl-C is held back during the fork: Python would run its handler inside an at-fork hook
    # (logging's), which swallows the KeyboardInterrupt; the worker unblocks it once it ignores it
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    # the worker's collector leaves alone what it inherits (frozen at the fork): traversing it
    # would write to every inherited object, and the kernel would copy each page so touched
    gc.freeze()
    try:
        process.start()
    finally:
        gc.unfreeze()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    there.close()


def _warn(error: Exception, name: str = "") -> None:
    log.warning("%s%s: recorded as its error", f"page {name}: " if name else "", describe(error))


def stream_in_workers(
    task: Callable[[P], T],
    payloads: Iterable[P],
    n_workers: int,
    page_timeout_s: float | None = None,
    page_name: Callable[[P], str] = str,
    window: int | None = None,
) -> Iterator[tuple[P, T | Exception, bool]]:
    """``(payload, task(payload), True)`` for every payload, in input order, computed in
    ``n_workers`` forked worker processes that serve the whole stream; ``(payload, error, False)``
    for a page whose worker died twice (:class:`WorkerCrashed`) or that ran past
    ``page_timeout_s`` (:class:`PageTimeout`). ``payloads`` is read as workers become free, at
    most ``window`` pages ahead of the last one yielded (bounded memory on any input; None: no
    bound); ``page_name(payload)`` names a page in messages. An exception raised by ``task``
    itself (a bug, not a page's error) is raised here. On Ctrl-C the pages already finished come
    out, in input order, before the interrupt goes on."""
    n_workers = max(1, n_workers)
    source = enumerate(payloads)
    again: deque[tuple[int, P]] = deque()  # pages whose worker died once, run first
    finished: dict[int, tuple[P, T | Exception, bool]] = {}
    deaths: Counter[int] = Counter()
    workers: list[_Worker] = []
    taken = yielded = 0
    exhausted = False

    def take() -> tuple[int, P] | None:
        nonlocal taken, exhausted
        if again:
            return again.popleft()
        if exhausted or (window is not None and taken - yielded >= window):
            return None
        job = next(source, None)
        if job is None:
            exhausted = True
            return None
        taken += 1
        return job

    def finish(worker: _Worker, value: T | Exception, ok: bool) -> None:
        assert worker.position is not None
        finished[worker.position] = (worker.payload, value, ok)
        worker.free()

    try:
        while True:
            while (idle := next((w for w in workers if w.position is None), None)) or len(workers) < n_workers:
                job = take()
                if job is None:
                    break
                if idle is None:
                    _start(task, workers)
                    idle = workers[-1]
                idle.give(*job)
            busy = [w for w in workers if w.position is not None]
            if not busy:
                break
            wait_s = None
            if page_timeout_s is not None:
                wait_s = max(0.0, min(w.started for w in busy) + page_timeout_s - time.monotonic())
            ready = set(wait([*(w.conn for w in busy), *(w.process.sentinel for w in busy)], wait_s))
            for worker in busy:
                if worker.conn in ready or worker.process.sentinel in ready:
                    message = worker.receive()
                    if message is not None:
                        ok, value = message
                        if not ok:
                            raise value
                        finish(worker, value, True)
                        continue
                    position, payload = worker.position, worker.payload
                    assert position is not None
                    worker.stop()
                    workers.remove(worker)
                    deaths[position] += 1
                    if deaths[position] < DEATHS_PER_PAGE:
                        log.warning("the worker process died on page %s: running it again", page_name(payload))
                        again.appendleft((position, payload))
                    else:
                        error = WorkerCrashed(f"the worker process died twice on page {page_name(payload)}")
                        _warn(error)
                        finished[position] = (payload, error, False)
                elif page_timeout_s is not None and time.monotonic() - worker.started >= page_timeout_s:
                    timeout = PageTimeout(page_timeout_s)
                    _warn(timeout, page_name(worker.payload))
                    finish(worker, timeout, False)
                    worker.stop()
                    workers.remove(worker)
            while yielded in finished:
                yield finished.pop(yielded)
                yielded += 1
    except KeyboardInterrupt:
        for position in sorted(finished):
            yield finished[position]
        raise
    finally:
        for worker in workers:
            worker.stop()


def run_in_workers(
    task: Callable[[int], T],
    count: int,
    n_workers: int,
    done: Callable[[int, T], None],
    failed: Callable[[int, Exception], None],
    page_timeout_s: float | None = None,
    page_name: Callable[[int], str] = str,
) -> None:
    """``done(i, task(i))`` for every ``i < count``, in ``n_workers`` forked worker processes
    (``task`` reads what the parent set up before: the workers inherit it), or ``failed(i,
    error)`` for a page whose worker died twice or that ran past ``page_timeout_s``
    (:func:`stream_in_workers`); ``page_name(i)`` names the page in messages."""
    for index, value, ok in stream_in_workers(task, range(count), n_workers, page_timeout_s, page_name):
        if ok:
            done(index, value)  # type: ignore[arg-type]
        else:
            failed(index, value)  # type: ignore[arg-type]


def apply(
    task: Callable[[int], T],
    count: int,
    n_workers: int,
    done: Callable[[int, T], None],
    failed: Callable[[int, Exception], None],
    page_timeout_s: float | None = None,
    page_name: Callable[[int], str] = str,
) -> None:
    """``done(i, task(i))`` for every ``i < count``: in this process when ``n_workers`` is 1 and
    no page has a time limit (nothing to replace: the fastest way, and an extractor's state stays
    here), else in worker processes (:func:`run_in_workers`: ``page_timeout_s`` needs a process to
    kill, even for one worker). Without fork (Windows) the pages run here, without a time limit."""
    if (n_workers > 1 or page_timeout_s is not None) and not can_fork():
        log.warning("worker processes and page_timeout_s need the fork start method: running in one process")
        n_workers, page_timeout_s = 1, None
    if n_workers <= 1 and page_timeout_s is None:
        for index in range(count):
            done(index, task(index))
        return
    run_in_workers(task, count, n_workers, done, failed, page_timeout_s, page_name)
