"""Queries of the endpoint evaluated in worker processes, so that a query can be stopped.

pyoxigraph cannot be interrupted while it evaluates a query, and the work before a query's first
row (a sort, an aggregate over a large join) may take hours. So ``kg serve`` hands each query to
one of a few worker processes, each with the folder's store opened read-only, and waits for the
answer at most ``timeout`` seconds: a worker that does not answer in time is killed and
replaced, and the client gets ``503`` saying so. A worker whose memory grew past
``recycle_mb`` after a large answer ends itself and is replaced, so the memory goes back to the
system. A worker that ends without answering (out of memory) costs a ``500``, never the server.

>>> # pool = QueryWorkers("exports", workers=2, timeout=30, max_bytes=100 << 20)
>>> # pool.ask("ASK { ?s ?p ?o }", "text/csv").payload  ->  b'_askResult\\r\\ntrue\\r\\n'
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import queue
import sys
import threading
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path

from kg.sinks.rdf.answer import Answer, answer


def _work(conn, folder: str, max_bytes: int, timeout: float, recycle_mb: int) -> None:
    """A worker: answer queries from ``conn`` until it closes (the server ended)."""
    import resource

    from kg.errors import KgError
    from kg.sinks.rdf.store import Stores

    stores = Stores(folder)
    conn.send("ready")
    while True:
        try:
            text, accept = conn.recv()
        except (EOFError, OSError):
            return
        try:
            result = answer(stores.get().store, text, accept, max_bytes, timeout)
        except KgError as exc:
            result = Answer.error(HTTPStatus.SERVICE_UNAVAILABLE, f"the graph cannot be read now: {exc}")
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // (1024 if sys.platform != "darwin" else 1 << 20)
        done = peak_mb > recycle_mb
        conn.send((result, done))
        if done:
            return


@dataclass(eq=False)
class _Worker:
    process: mp.process.BaseProcess
    conn: object


class QueryWorkers:
    """A few worker processes answering the endpoint's queries, each query within ``timeout``."""

    def __init__(self, folder: str | Path, workers: int = 2, timeout: float = 60.0, max_bytes: int = 100 << 20,
                 recycle_mb: int = 1024):
        self.folder, self.timeout, self.max_bytes, self.recycle_mb = str(folder), timeout, max_bytes, recycle_mb
        self._ctx = mp.get_context("spawn")  # never fork a server that runs threads
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._all: set[_Worker] = set()
        self._closed = False
        self._lock = threading.Lock()
        for w in [self._start() for _ in range(max(1, workers))]:
            self._ready(w)

    def _start(self) -> _Worker:
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=_work, args=(child, self.folder, self.max_bytes, self.timeout,
                                                     self.recycle_mb), daemon=True, name="kg-sparql-worker")
        proc.start()
        child.close()
        w = _Worker(proc, parent)
        with self._lock:
            self._all.add(w)
        return w

    def _ready(self, w: _Worker) -> None:
        """Wait for a started worker to say it is ready, then offer it queries."""
        try:
            if w.conn.poll(max(self.timeout, 120)) and w.conn.recv() == "ready":
                self._idle.put(w)
                return
        except (EOFError, OSError):
            pass
        self._end(w)

    def _end(self, w: _Worker) -> None:
        with contextlib.suppress(OSError, ValueError):
            w.process.kill()
        w.process.join(5)
        with contextlib.suppress(OSError):
            w.conn.close()
        with self._lock:
            self._all.discard(w)

    def _replace(self, w: _Worker) -> None:
        """End ``w`` and start another in the background (the client is not kept waiting)."""
        self._end(w)
        if not self._closed:
            threading.Thread(target=lambda: self._ready(self._start()), daemon=True).start()

    def ask(self, text: str, accept: str | None) -> Answer:
        """The answer of one worker, or a 503 when none is free or the query takes too long."""
        try:
            w = self._idle.get(timeout=self.timeout)
        except queue.Empty:
            return Answer.error(HTTPStatus.SERVICE_UNAVAILABLE, "every query worker is busy; try again later")
        try:
            w.conn.send((text, accept))
            if not w.conn.poll(self.timeout + 1):
                self._replace(w)
                return Answer.error(HTTPStatus.SERVICE_UNAVAILABLE, f"the query took longer than {self.timeout:g} s "
                                    "and was stopped; ask for less (LIMIT, a narrower pattern)")
            result, done = w.conn.recv()
        except (EOFError, OSError):
            self._replace(w)
            return Answer.error(HTTPStatus.INTERNAL_SERVER_ERROR, "the process evaluating the query ended "
                                "without an answer (out of memory?); ask for less")
        if done:
            self._replace(w)
        else:
            self._idle.put(w)
        return result

    def close(self) -> None:
        self._closed = True
        with self._lock:
            workers = list(self._all)
        for w in workers:
            self._end(w)


__all__ = ["QueryWorkers"]
