"""The render pool: worker processes started with ``subprocess``, not ``multiprocessing``.

A Celery prefork worker runs its tasks in daemonic billiard processes, and a daemonic
process may not start ``multiprocessing`` children ("daemonic processes are not allowed to
have children"), so a pool of those printed a whole set in one process there. These
workers are plain child processes (``python -m content.printing.pool``), which no such rule
concerns: a print renders on every core in whatever process runs it (a prefork child, a
threads worker, a web process, a bench). Starting them is fork + exec in C, safe in a
threaded process.

A worker reads requests on its stdin and writes answers on its stdout (its ``print`` and
WeasyPrint's warnings go to stderr), as length-prefixed pickles: ``(function, args)`` in,
``(ok, value or exception)`` out. The functions are the module-level ones of
:mod:`content.printing.worker`, which imports no Django. A worker whose parent is gone reads
the end of its stdin and exits, so a print stopped by Celery's hard time limit (its process
killed) leaves no workers behind.

The pool stays up between prints: a warm print skips starting Python and importing
WeasyPrint in every worker (about a second on a busy 2-core machine). It is closed after
:data:`IDLE_SECONDS` without a print, and when the process exits.

A worker does nothing but answer requests, so it runs Python's cycle collector between
them rather than during them: WeasyPrint allocates millions of small objects per chunk, and
the collector, run every few hundred allocations over the whole heap (WeasyPrint's own
modules included), took about a sixth of a render. The objects of the imported modules are
frozen once (``gc.freeze``) and every request runs with the collector off; the garbage of a
request is collected after its answer is sent (a chunk's cycles are a few megabytes).
"""

from __future__ import annotations

import atexit
import gc
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

__all__ = ["IDLE_SECONDS", "BrokenRenderPool", "RenderPool", "shared_pool"]

#: A pool unused this long is closed (its workers hold WeasyPrint: ~80 MB each).
IDLE_SECONDS = 300.0
_HEADER = struct.Struct("!Q")
_ROOT = str(Path(__file__).resolve().parents[2])


class BrokenRenderPool(RuntimeError):
    """A worker process ended or could not be reached; the pool takes no more work."""


def _send(stream: IO[bytes], message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError("the stream ended")
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the stream ended inside a message")
    return pickle.loads(data)


def serve(requests: IO[bytes], answers: IO[bytes]) -> None:
    """A worker's loop: answer each request until the parent closes ``requests``, with
    the cycle collector off during a request and run after its answer is sent."""
    while True:
        try:
            function, args = _receive(requests)
        except EOFError:
            return
        gc.disable()
        try:
            answer: tuple[bool, Any] = (True, function(*args))
        except Exception as error:
            answer = (False, error)
        try:
            _send(answers, answer)
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            _send(answers, (False, BrokenRenderPool(f"cannot send the answer back: {error!r}")))
        finally:
            del answer
            gc.enable()
            gc.collect()


class _Worker:
    """One worker process and the thread in this process that feeds it."""

    def __init__(self, pool: RenderPool) -> None:
        self.pool = pool
        path = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": _ROOT + (os.pathsep + path if path else "")}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "content.printing.pool"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            close_fds=True,
        )
        self.thread = threading.Thread(target=self._run, name=f"render-{self.process.pid}", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        while True:
            item = self.pool._tasks.get()
            if item is None:
                break
            future, function, args = item
            if not future.set_running_or_notify_cancel():
                continue
            if self.pool.broken:
                future.set_exception(BrokenRenderPool(self.pool.broken))
                continue
            try:
                _send(self.process.stdin, (function, args))
                ok, value = _receive(self.process.stdout)
            except (OSError, EOFError, pickle.UnpicklingError) as error:
                self.pool._break(f"render process {self.process.pid} ended ({error!r})")
                future.set_exception(BrokenRenderPool(self.pool.broken))
                continue
            except (pickle.PicklingError, TypeError, AttributeError) as error:  # the request
                future.set_exception(error)
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)
        self.stop()

    def stop(self) -> None:
        if self.process.stdin is not None:
            with suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


class RenderPool(Executor):
    """``size`` worker processes taking work from one queue (``submit`` as any Executor)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.broken = ""
        self._tasks: queue.SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]] | None] = (
            queue.SimpleQueue()
        )
        self._closed = False
        self._workers: list[_Worker] = []
        try:
            for _ in range(size):
                self._workers.append(_Worker(self))
        except OSError:
            self.shutdown()
            raise

    @property
    def pids(self) -> list[int]:
        return [worker.process.pid for worker in self._workers]

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if kwargs:
            raise TypeError("the render pool takes positional arguments only")
        if self._closed or self.broken:
            raise BrokenRenderPool(self.broken or "the render pool is closed")
        future: Future[Any] = Future()
        self._tasks.put((future, fn, args))
        return future

    def _break(self, reason: str) -> None:
        """A worker is gone: fail what waits (no worker may be left to take it)."""
        self.broken = self.broken or reason
        while True:
            try:
                item = self._tasks.get_nowait()
            except queue.Empty:
                return
            if item is None:
                self._tasks.put(None)
                return
            future = item[0]
            if future.set_running_or_notify_cancel():
                future.set_exception(BrokenRenderPool(reason))

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if not self._closed:
            self._closed = True
            for _ in self._workers:
                self._tasks.put(None)
        if wait:
            for worker in self._workers:
                worker.thread.join()

    @property
    def usable(self) -> bool:
        return not self._closed and not self.broken and all(w.process.poll() is None for w in self._workers)


# -- one pool per process, kept warm between prints ----------------------------------------

_lock = threading.Lock()
_shared: RenderPool | None = None
_owner = 0  # the process that started _shared (a forked child must not use its parent's)
_users = 0
_timer: threading.Timer | None = None


def _close_idle(pool: RenderPool) -> None:
    global _shared
    with _lock:
        if _shared is not pool or _users:
            return
        _shared = None
    pool.shutdown(wait=False)


@contextmanager
def shared_pool(size: int) -> Iterator[tuple[RenderPool, bool]]:
    """This process's pool of ``size`` workers, started if need be; yields it and whether
    it was started now (a cold print). Raises OSError when no process can be started."""
    global _shared, _owner, _users, _timer
    with _lock:
        if _timer is not None:
            _timer.cancel()
            _timer = None
        if _shared is not None and (_owner != os.getpid() or not _shared.usable or _shared.size != size):
            if _owner == os.getpid():
                _shared.shutdown(wait=False)
            _shared = None
        started = _shared is None
        if _shared is None:
            _shared, _owner = RenderPool(size), os.getpid()
        pool = _shared
        _users += 1
    try:
        yield pool, started
    finally:
        with _lock:
            _users -= 1
            if not _users and _shared is pool:
                _timer = threading.Timer(IDLE_SECONDS, _close_idle, (pool,))
                _timer.daemon = True
                _timer.start()


def close() -> None:
    """Close this process's pool now (at exit; tests)."""
    global _shared
    with _lock:
        pool, _shared = (_shared, None) if _owner == os.getpid() else (None, _shared)
    if pool is not None:
        pool.shutdown(wait=True)


atexit.register(close)


def _main() -> None:
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray output must not corrupt the answers
    sys.stdout = sys.stderr
    import content.printing.worker  # noqa: F401  # WeasyPrint imported once, before the first request

    gc.collect()
    gc.freeze()  # the modules' objects: never garbage, no longer scanned by each collection
    serve(sys.stdin.buffer, answers)


if __name__ == "__main__":
    _main()
