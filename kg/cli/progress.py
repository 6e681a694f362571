"""Progress where no bar can be drawn: stderr is a log file, a pipe or a CI job. A bar redraws
one line, which such a stream cannot; it showed nothing there, so a build of 20,000 papers ran
for minutes without a word. :class:`LineProgress` writes lines instead: how far a task is, how
long it has run and about how long it has left, at most one line a :data:`EVERY` seconds per
task, the first once it has run :data:`AFTER` seconds (a short task says nothing), and a last
one when a task that ran longer ends. It takes the calls rich's ``Progress`` takes, so a command
uses either.

>>> import io
>>> from rich.console import Console
>>> out, now = io.StringIO(), [0.0]
>>> p = LineProgress(Console(file=out, width=200), clock=lambda: now[0])
>>> with p:
...     t = p.add_task("extracting", total=1000)
...     now[0] = 30.0; p.advance(t, 250)
...     now[0] = 90.0; p.advance(t, 750)
>>> print(out.getvalue(), end="")
extracting: 250/1,000 (25%) in 30 s, about 1 min 30 s left
extracting: 1,000/1,000 (100%) in 1 min 30 s
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console

EVERY = 15.0  # seconds between two lines of one task
AFTER = 5.0  # seconds a task runs before its first line


def duration(seconds: float) -> str:
    """``42 s``, ``3 min 5 s``, ``1 h 2 min``.

    >>> duration(42.4), duration(185), duration(3725)
    ('42 s', '3 min 5 s', '1 h 2 min')
    """
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"


@dataclass
class Task:
    description: str
    total: float | None
    start: float
    completed: float = 0
    last: float | None = None  # when its last line was written
    finished: bool = False


class LineProgress:
    """Progress as lines (see the module's description), on ``console``."""

    def __init__(self, console: Console, every: float | None = None, after: float | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.console, self.clock = console, clock
        self.every = EVERY if every is None else every
        self.after = AFTER if after is None else after
        self.tasks: list[Task] = []

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc) -> None:
        if exc[0] is None:
            for i in range(len(self.tasks)):
                self._end(i)

    def add_task(self, description: str, total: float | None = None, **_) -> int:
        for i in range(len(self.tasks)):  # one task at a time: a new one ends those before
            self._end(i)
        spoke = any(t.last is not None for t in self.tasks)
        self.tasks.append(Task(description, total, self.clock()))
        if spoke and not total:  # a long run's next step, which may never tick: say it began
            self.console.print(f"{description}…", markup=False, highlight=False, soft_wrap=True)
        return len(self.tasks) - 1

    def advance(self, task: int, advance: float = 1) -> None:
        t = self.tasks[task]
        t.completed += advance
        now = self.clock()
        if t.total and t.completed >= t.total:
            self._end(task)
        elif now - t.start >= self.after and (t.last is None or now - t.last >= self.every):
            self._line(t, now)

    def update(self, task: int, completed: float | None = None, total: float | None = None, **_) -> None:
        if total is not None:
            self.tasks[task].total = total
        if completed is not None:
            self.advance(task, completed - self.tasks[task].completed)

    def stop(self) -> None:
        """Stop: an error follows, and no task says it is done."""
        for t in self.tasks:
            t.finished = True

    def _end(self, task: int) -> None:
        t = self.tasks[task]
        if not t.finished:
            t.finished = True
            now = self.clock()
            if t.last is not None or now - t.start >= self.after:  # a long task says when it is done
                self._line(t, now, done=True)

    def _line(self, t: Task, now: float, done: bool = False) -> None:
        t.last = now
        spent = now - t.start
        if t.total:
            share = min(t.completed / t.total, 1.0)
            text = f"{t.description}: {t.completed:,.0f}/{t.total:,.0f} ({100 * share:.0f}%) in {duration(spent)}"
            if not done and share > 0:
                text += f", about {duration(spent / share - spent)} left"
        else:
            text = f"{t.description}: {t.completed:,.0f} in {duration(spent)}" + (", done" if done else "")
        self.console.print(text, markup=False, highlight=False, soft_wrap=True)


__all__ = ["AFTER", "EVERY", "LineProgress", "duration"]
