"""One private event loop in a daemon thread, shared by every LLM call of the process.

Sync code (the engine's `act`) calls `bridge.run(coro)`; async code awaits `bridge.run_async(coro)`.
Either way the coroutine runs on the bridge's loop, so HTTP connection pools and the clients'
concurrency limits live on one loop and are shared by all sessions, whatever thread or loop they
run in.
No event loop is ever nested: a caller blocks on a thread-safe future instead.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from parley.errors import InternalError

logger = logging.getLogger(__name__)

T = TypeVar("T")


class EventLoopThread:
    """An asyncio loop running forever in a daemon thread, started on first use.

    Args:
        name: Thread name (shows in debuggers and logs).
    """

    def __init__(self, name: str = "parley-llm") -> None:
        self._name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closed = False

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The bridge's loop (starting the thread if needed).

        Raises:
            InternalError: the bridge was closed.
        """
        with self._lock:
            if self._closed:
                raise InternalError("the LLM event-loop thread was closed")
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()
                thread = threading.Thread(
                    target=self._serve, args=(loop, ready), name=self._name, daemon=True
                )
                thread.start()
                ready.wait()
                self._loop, self._thread = loop, thread
            return self._loop

    @staticmethod
    def _serve(loop: asyncio.AbstractEventLoop, ready: threading.Event) -> None:
        asyncio.set_event_loop(loop)
        loop.call_soon(ready.set)
        loop.run_forever()

    def _on_own_thread(self) -> bool:
        return self._thread is not None and threading.current_thread() is self._thread

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run coro on the bridge loop and block until it finishes (for synchronous callers).

        Raises:
            InternalError: called from the bridge's own thread (it would deadlock).
        """
        if self._on_own_thread():
            coro.close()
            raise InternalError("EventLoopThread.run called from its own loop; await run_async instead")
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    async def run_async(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await coro on the bridge loop from any event loop (directly when already on it)."""
        if self._on_own_thread():
            return await coro
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def close(self) -> None:
        """Cancel pending tasks, stop the loop and join the thread (idempotent)."""
        with self._lock:
            loop, thread, self._closed = self._loop, self._thread, True
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        asyncio.run_coroutine_threadsafe(_cancel_pending(), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


async def _cancel_pending() -> None:
    current = asyncio.current_task()
    tasks = [t for t in asyncio.all_tasks() if t is not current]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


_default: EventLoopThread | None = None
_default_lock = threading.Lock()


def default_bridge() -> EventLoopThread:
    """The process-wide bridge (closed automatically at interpreter exit)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = EventLoopThread()
            atexit.register(_default.close)
        return _default


def run_sync(coro: Coroutine[Any, Any, T], bridge: EventLoopThread | None = None) -> T:
    """Run coro to completion from synchronous code, on bridge (default: the process-wide one)."""
    return (bridge or default_bridge()).run(coro)
