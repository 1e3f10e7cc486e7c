"""Running an evaluation's debates on Ray async actors, on this machine or a cluster.

Each worker is a Ray async actor holding one
:class:`~debategraph.eval.run.executors.local.ItemRunner`, the per-process runner that the local
executor uses, with its share of ``concurrency`` and ``rps``. The driver (the process that
called :func:`~debategraph.eval.run.runner.run_eval`) gives each worker as many work units as it
has call slots, plus two ready to start, and writes every row the workers hand back; a
worker writes no file but its own spend notes (below).

* Models are resolved inside the workers from their specs, with the workers' environment
  (``OPENAI_API_KEY``, ``OPENAI_BASE_URL`` and the like): no key travels through Ray. An arm
  that cannot be pickled, or whose pickle holds a configured secret (a model object with its
  key, a URL with credentials), is refused before any call, with the fix.
* A worker that dies (killed, out of memory, its node lost) is restarted by Ray and the
  units it held run again; the driver writes one row per (arm, item, seed) whatever arrives twice.
  A unit whose retries run out becomes failed rows, run again by the next run.
* ``--cache`` is one SQLite file (WAL mode, one writer at a time): workers on this machine
  share it safely; workers on other machines cannot, so it is refused there.
* Ray starts its workers at a lower CPU priority (niceness 15); these run at normal priority
  (``RAY_worker_niceness=0`` in the actors' runtime environment: no other variable).
* A run cut short (Ctrl-C, the breaker) cancels the units in flight. A worker notes what
  the debates it cancels had spent, and the rows of a cancelled unit's finished debates
  (they never reach the driver); before it lets the workers go, the driver collects these
  notes, and the rows of units that finished unread, into the run's cut-short spend
  (:mod:`debategraph.eval.run.cut_short`). A worker that does not answer within
  :data:`SETTLE_S` (killed, its node lost) takes its notes with it.
* Each worker writes its debates' spend notes
  (:data:`~debategraph.eval.run.cut_short.SPEND_NOTES`) to a file of its own as they
  happen, ``OUT/spend/<run>/<worker>.jsonl`` (one writer per file, one ``write`` per note,
  as the driver writes ``OUT/spend.jsonl``), so a driver killed with its workers loses no
  note. The driver makes the ``<run>`` folder (a random name) before the workers start; a
  worker that cannot see it (on another machine, the results directory not on storage the
  cluster shares) or cannot write there (a full disk) keeps its notes until the driver takes
  them and appends them to ``OUT/spend.jsonl``: then a driver killed with its workers loses
  the notes of at most the last :data:`NOTES_EVERY_S`. The driver takes from each worker on
  its own, every :data:`NOTES_EVERY_S` and once more before it lets the workers go (a take
  under way at the end is awaited, never cut off, since the worker forgot what it sent); it
  also takes the notes a worker wrote itself when the run has a spend guard, which counts
  them, never writing them again. A worker whose driver is gone (its process ended, on the
  driver's machine; or no take for :data:`ORPHAN_S` elsewhere) cancels its units at once, so
  that it makes no request that nobody could put on the bill; such a unit is a failed row
  (run again on resume), and a worker whose driver takes again runs units again.
* With LangSmith tracing on, each worker traces its own debates, and LangSmith's client
  sends them in batches from a background thread. Before the workers are let go (at the
  end, or cut short), the driver asks each worker that traces to send what it still holds,
  and waits for them all together, at most :data:`FLUSH_S`.
* A local cluster started for a run ends with it, however the driver ends: a watcher
  process ends what is left of it once the driver is gone (:mod:`.reaper`). Connecting
  is quiet, and joins with this machine's Ray token (:mod:`.ray_connect`).

Ray is imported when a ``RayExecutor`` runs or checks a job, never before
(``pip install 'debategraph[ray]'``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

from debategraph.api import DebateConfigError
from debategraph.eval.log.files import SPEND_NOTES_DIR
from debategraph.eval.log.ledger import NoteFile
from debategraph.eval.log.rows import error_row
from debategraph.eval.log.spend import Note
from debategraph.eval.run.cut_short import (
    CUT_SHORT,
    SPEND_NOTES,
    WORKER_NOTES,
    WorkerNotes,
    note_row,
)
from debategraph.eval.run.executors.base import Deliver, Job, Work
from debategraph.eval.run.executors.local import ItemRunner
from debategraph.eval.run.executors.ray_connect import join, join_error, start_local
from debategraph.eval.run.executors.reaper import Watcher, children
from debategraph.eval.run.redaction import run_redactor
from debategraph.policies.secrets import Redactor, url_secrets
from debategraph.policies.terminal import quiet_unawaited_tasks
from debategraph.tracing_guard import flush_traces, quiet_tracing_logs

WORKER_ENV = {"RAY_worker_niceness": "0"}
"""The workers' runtime environment: normal CPU priority (Ray's default lowers it)."""

HEADROOM = 2
"""Units a worker holds beyond its call slots, so that it never waits for the driver."""

SETTLE_S = 5.0
"""How long, at most and in all, a run cut short waits for its cancelled units to end and
for its workers' notes of their spend before it disconnects."""

NOTES_EVERY_S = 0.05
"""How often the driver takes the workers' spend notes."""

ORPHAN_S = 15.0
"""How long a worker on another machine than its driver's waits, with no take of its notes,
before it takes the driver for gone and stops."""

FLUSH_S = 10.0
"""How long, at most and in all, the driver waits for its tracing workers to send their last
traces to LangSmith before it lets them go."""


def _ray() -> ModuleType:
    try:
        import ray
    except ImportError:
        raise DebateConfigError(
            "the Ray engine needs Ray: pip install 'debategraph[ray]'"
        ) from None
    return ray


class RayExecutor:
    """Runs an evaluation's debates on Ray workers (async actors), one process each.

    Args:
        address: A running cluster to join (``"auto"``, or ``HOST:PORT`` of its head);
            ``None`` starts a local cluster of ``workers`` CPUs for this run and stops it
            at the end. A process already connected to Ray (``ray.init``) uses that.
        workers: How many workers (default: this machine's cores for a local cluster,
            the cluster's CPUs when joining one); at most ``concurrency``.
        start_timeout_s: How long the workers may take to start.
        max_task_retries: How many times Ray runs a unit again after its worker died.

    Attributes:
        started: What each worker said when it started: ``pid``, ``node``, ``version``,
            ``niceness``, ``runtime_env`` (what Ray set up for it) and ``traces`` (whether
            it traces to LangSmith).
        pids: The process ids that finished units (restarted workers included).
    """

    def __init__(
        self,
        address: str | None = None,
        workers: int | None = None,
        *,
        start_timeout_s: float = 120.0,
        max_task_retries: int = 3,
    ) -> None:
        if workers is not None and (isinstance(workers, bool) or workers < 1):
            raise ValueError(f"workers must be at least 1, got {workers!r}")
        self.address = address
        self.workers = workers
        self.start_timeout_s = start_timeout_s
        self.max_task_retries = max_task_retries
        self.started: list[dict[str, Any]] = []
        self.pids: set[int] = set()
        self._watcher: Watcher | None = None
        self._in_flight: dict[asyncio.Future[Any], Any] = {}
        self._notes_at: Path | None = None

    def check(self, job: Job) -> None:
        """Refuse what cannot go to a worker, before any call (see the module docs).

        Raises:
            DebateConfigError: Ray is not installed, a cache object instead of a path, or an
                arm that cannot be sent (unpicklable, or holding a secret).
        """
        ray = _ray()
        if job.cache is not None and not isinstance(job.cache, str | os.PathLike):
            raise DebateConfigError(
                "a cache object cannot be shared by Ray workers: give the cache as a SQLite "
                "file path (--cache FILE)"
            )
        secrets = run_redactor(job.arms)
        urls = [a.settings.get("base_url") for a in job.arms]
        in_urls = Redactor(s for url in urls if isinstance(url, str) for s in url_secrets(url))
        for arm in job.arms:
            try:
                data = ray.cloudpickle.dumps(arm)
            except Exception as exc:
                raise DebateConfigError(
                    f"arm {arm.label!r} cannot be sent to Ray workers ({type(exc).__name__}: "
                    f"{secrets(str(exc))[:200]}): give its models as spec strings (such as "
                    "'openai:gpt-4o-mini', or a model name with base_url), which each worker "
                    "builds from its own environment"
                ) from None
            if in_urls.holds_secret(data.decode("latin-1")):
                raise DebateConfigError(
                    f"arm {arm.label!r} has credentials in its base URL, which Ray would copy "
                    "to its workers: give them to the workers' environment instead: the "
                    "model as 'openai:MODEL' with no base URL, and OPENAI_BASE_URL="
                    "http://USER:PASSWORD@HOST:PORT/v1 plus OPENAI_API_KEY (any value if the "
                    "server takes none) set where the workers start (this command's "
                    "environment for a local cluster, `ray start`'s for a joined one); each "
                    "worker then sends the Basic credentials itself"
                )
            if secrets.holds_secret(data.decode("latin-1")):
                raise DebateConfigError(
                    f"arm {arm.label!r} holds a secret (a model object with its API key, or "
                    "credentials in a URL) that Ray would copy to its workers: give its "
                    "models as spec strings and the key in the workers' environment (e.g. "
                    "OPENAI_API_KEY)"
                )

    async def run(self, job: Job, work: Iterator[Work], deliver: Deliver) -> int:
        """Run every unit on the workers (see :meth:`Executor.run`).

        Returns:
            The sum of each worker's peak of in-flight calls.
        """
        ray = _ray()
        connected = self._connect(ray)
        actors: list[Any] = []
        self.started = []
        try:
            if job.cache is not None:
                self._check_one_machine(ray)
                job = replace(job, cache=str(Path(job.cache).expanduser().resolve()))
            count = self.workers or int(ray.cluster_resources().get("CPU", 1))
            shares = job.shares(count)
            worker = ray.remote(_Worker)
            driver = {"node": ray.util.get_node_ip_address(), "pid": os.getpid()}
            place = WORKER_NOTES.get()
            notes_at = self._notes_folder(place)
            own = None
            if notes_at is not None and place is not None:
                own = {"dir": str(notes_at), "fsync": place.fsync, "counted": bool(place.seen)}
            actors = [
                worker.options(
                    num_cpus=1,
                    max_restarts=-1,
                    max_task_retries=self.max_task_retries,
                    max_concurrency=share.concurrency + HEADROOM + 8,
                    runtime_env={"env_vars": WORKER_ENV},
                    scheduling_strategy="SPREAD",
                ).remote(share, driver, own)
                for share in shares
            ]
            self.started = await self._hello(actors)
            stop = asyncio.Event()
            seen = None if place is None else place.seen
            taking = asyncio.ensure_future(_take_notes(actors, SPEND_NOTES.get(), seen, stop))
            try:
                return await self._dispatch(ray, actors, shares, work, deliver)
            finally:
                await _stop_taking(taking, stop)
        finally:
            self._settle(ray, actors)
            self._flush_traces(ray, actors)
            if connected:  # the job's actors end with its driver (and the cluster it started)
                ray.shutdown()
            else:
                for actor in actors:
                    with contextlib.suppress(Exception):
                        ray.kill(actor)
            if self._watcher is not None:
                self._watcher.close()
                self._watcher = None
            if self._notes_at is not None:
                _remove_if_empty(self._notes_at)
                self._notes_at = None

    def _notes_folder(self, place: WorkerNotes | None) -> Path | None:
        """Make this run's folder for the workers' own note files (``None``: cannot).

        The empty folders of earlier runs in the directory (a driver killed before any note)
        are removed first; the directory's lock keeps other runs out of it.
        """
        if place is None or SPEND_NOTES.get() is None:
            return None
        notes = place.out_dir / SPEND_NOTES_DIR
        for earlier in notes.glob("*/"):  # a driver killed before any worker wrote a note
            with contextlib.suppress(OSError):
                earlier.rmdir()  # only an empty one
        folder = notes / secrets.token_hex(8)
        try:
            folder.mkdir(parents=True)
        except OSError:
            return None
        self._notes_at = folder
        return folder

    def _settle(self, ray: ModuleType, actors: list[Any]) -> None:
        """Cancel the units still running (a run cut short), let them end, note their spend.

        Killed under a running unit, an actor's task fails with a retry message that Ray
        prints, or, once the driver is disconnected, a C++ error that it could not. The rows
        of a unit that finished unread and what the workers noted of the cancelled ones go
        to the run's cut-short spend. Both waits share one deadline, :data:`SETTLE_S` away.
        """
        refs = list(self._in_flight.values())
        for future in self._in_flight:
            future.cancel()  # nobody reads it now: no "exception never retrieved" at exit
        self._in_flight.clear()
        for ref in refs:
            with contextlib.suppress(Exception):
                ray.cancel(ref)
        deadline = time.monotonic() + SETTLE_S  # one wait in all, for units and notes
        for ref in _answered(ray, refs, deadline) if refs else ():
            with contextlib.suppress(Exception):  # a cancelled unit's rows are the worker's
                note_rows(ray.get(ref, timeout=0)[0])
        notes = SPEND_NOTES.get()
        sink = CUT_SHORT.get()
        place = WORKER_NOTES.get()
        if sink is None and notes is None:
            return
        for ask in _answered(ray, _ask_each(actors, "spent"), deadline):
            with contextlib.suppress(Exception):
                spent, taken = ray.get(ask, timeout=0)
                if sink is not None:
                    sink.extend(spent)
                _hand_over(taken, notes, None if place is None else place.seen)

    def _flush_traces(self, ray: ModuleType, actors: list[Any]) -> None:
        """Ask each worker that traces to send its last traces; wait :data:`FLUSH_S` in all.

        A worker that does not answer in time (killed, its node lost, LangSmith slow) loses
        the traces it still holds; it costs the run that one wait, shared with the others.
        """
        tracing = [a for a, said in zip(actors, self.started, strict=False) if said.get("traces")]
        if tracing:
            deadline = time.monotonic() + FLUSH_S
            _answered(ray, _ask_each(tracing, "flush_traces", FLUSH_S), deadline)

    def _connect(self, ray: ModuleType) -> bool:
        """Start or join a cluster; whether this run must disconnect (and stop it) after."""
        if ray.is_initialized():
            return False
        quiet = {"logging_level": logging.WARNING, "include_dashboard": False}
        if self.address is not None:
            try:
                join(ray, self.address, **quiet)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise DebateConfigError(join_error(self.address, exc)) from None
            return True
        before = children(os.getpid())
        start_local(ray, self.workers or os.cpu_count() or 1, **quiet)
        started = children(os.getpid()).items() - before.items()
        self._watcher = Watcher.start(dict(started))
        return True

    def _check_one_machine(self, ray: ModuleType) -> None:
        here = ray.util.get_node_ip_address()
        others = {n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]} - {here}
        if others:
            raise DebateConfigError(
                f"--cache with Ray workers on other machines ({', '.join(sorted(others))}): "
                "the call cache is one SQLite file, which workers on other machines cannot "
                "share safely (each would open its own copy, and SQLite on a network file "
                "system can corrupt it); drop --cache, or run on one machine"
            )

    async def _hello(self, actors: list[Any]) -> list[dict[str, Any]]:
        from debategraph import __version__

        calls = [asyncio.wrap_future(actor.hello.remote().future()) for actor in actors]
        _, waiting = await asyncio.wait(calls, timeout=self.start_timeout_s)
        if waiting:
            raise DebateConfigError(
                f"{len(waiting)} of {len(actors)} Ray workers did not start within "
                f"{self.start_timeout_s:.0f} s: the cluster may have fewer free CPUs than "
                "workers asked for; give fewer --workers"
            )
        said = [call.result() for call in calls]
        for answer in said:
            if "error" in answer:
                raise DebateConfigError(f"a Ray worker could not start: {answer['error']}")
            if answer["version"] != __version__:
                raise DebateConfigError(
                    f"a Ray worker on {answer['node']} runs debategraph {answer['version']}, "
                    f"this process {__version__}: install the same version on every node"
                )
        return said

    async def _dispatch(
        self,
        ray: ModuleType,
        actors: list[Any],
        shares: list[Job],
        work: Iterator[Work],
        deliver: Deliver,
    ) -> int:
        room = [share.concurrency + HEADROOM for share in shares]
        held = [0] * len(actors)
        peaks = [0] * len(actors)
        pending: dict[asyncio.Future[Any], tuple[int, Work]] = {}
        units = iter(work)

        def give() -> None:
            given = True
            while given:  # one unit to each worker with room, in turn
                given = False
                for k, actor in enumerate(actors):
                    if held[k] < room[k] and (unit := next(units, None)) is not None:
                        ref = actor.run.remote(unit)
                        future = asyncio.wrap_future(ref.future())
                        pending[future] = (k, unit)
                        self._in_flight[future] = ref
                        held[k] += 1
                        given = True

        give()
        while pending:
            done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for future in done:
                k, unit = pending.pop(future)
                self._in_flight.pop(future, None)
                held[k] -= 1
                rows = self._rows(ray, future, unit, shares[k], peaks, k)
                for n, row in enumerate(rows):
                    try:
                        deliver(row)
                    except BaseException:  # the run stops: the unit's other rows are unwritten
                        note_rows(rows[n + 1 :])
                        raise
            give()
        return sum(peaks)

    def _rows(
        self,
        ray: ModuleType,
        future: asyncio.Future[Any],
        unit: Work,
        job: Job,
        peaks: list[int],
        k: int,
    ) -> list[dict[str, Any]]:
        try:
            rows, peak, pid = future.result()
        except ray.exceptions.RayActorError as exc:
            redact = Redactor.from_environment()
            reason = redact(str(exc).strip().splitlines()[0])[:300] if str(exc) else ""
            return self._error_rows(
                unit, job, f"WorkerDied: the Ray worker running this item died and Ray's "
                f"retries ran out ({reason})"
            )  # fmt: skip
        except getattr(ray.exceptions, "TaskCancelledError", ()):
            return self._error_rows(unit, job, "WorkerStopped: the Ray worker running this item "
                                    "stopped it (it took its driver for gone)")  # fmt: skip
        except ray.exceptions.RayTaskError as exc:
            raise (exc.cause if isinstance(exc.cause, DebateConfigError) else exc) from None
        peaks[k] = max(peaks[k], peak)
        self.pids.add(pid)
        return list(rows)

    @staticmethod
    def _error_rows(unit: Work, job: Job, error: str) -> list[dict[str, Any]]:
        """A failed row per arm of ``unit`` with ``error``: resuming runs them again."""
        arms = {arm.label: arm for arm in job.arms}
        error += ": run the same command again to retry it"
        return [
            error_row(
                arms[label], unit.item, error, wall_s=0.0, dataset=job.dataset, seed=unit.seed
            )
            for label in unit.unconditional(arms)
        ]


def note_rows(rows: list[dict[str, Any]]) -> None:
    """Note the spend of rows that will not be written (the run was cut short) as cut short."""
    sink = CUT_SHORT.get()
    for row in rows:
        note_row(sink, row)


async def _take_notes(
    actors: list[Any], sink: Note | None, seen: Note | None, stop: asyncio.Event
) -> None:
    """Take each worker's spend notes every :data:`NOTES_EVERY_S` and hand them over.

    Runs until ``stop`` is set; each worker is asked on its own, so one that is slow, quit
    or restarting delays no other's takes and is asked again next time. The notes a worker
    kept go to ``sink`` (the run's note file), those it wrote itself to ``seen`` (the spend
    guard); without them the notes are dropped, and the takes still tell the workers that
    their driver lives.
    """
    await asyncio.gather(*(_take_from(actor, sink, seen, stop) for actor in actors))


async def _take_from(actor: Any, sink: Note | None, seen: Note | None, stop: asyncio.Event) -> None:
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), NOTES_EVERY_S)
        if stop.is_set():
            return  # the last notes are taken as the workers are let go (``spent``)
        try:
            answer = await asyncio.wrap_future(actor.take_notes.remote().future())
        except Exception:
            continue
        _hand_over(answer, sink, seen)


def _hand_over(taken: object, sink: Note | None, seen: Note | None) -> None:
    """Hand a take's notes on: those the worker kept to ``sink``, those it wrote to ``seen``."""
    if not isinstance(taken, tuple | list) or len(taken) != 2:
        return
    kept, written = taken
    if sink is not None:
        for line in kept:
            sink(line)
    if seen is not None:
        for line in written:
            seen(line)


def _remove_if_empty(folder: Path) -> None:
    """Remove a run's folder of worker notes, and ``spend/``, when no worker wrote a note."""
    for empty in (folder, folder.parent):
        try:
            empty.rmdir()
        except OSError:
            return


async def _stop_taking(taking: asyncio.Future[None], stop: asyncio.Event) -> None:
    """Stop the takes between rounds; a take under way is awaited (at most :data:`SETTLE_S`).

    A worker forgets the notes it hands over, so a take is never cut off mid-way; a
    cancellation of the run that arrives meanwhile goes on (it is not swallowed).
    """
    stop.set()
    try:
        await asyncio.wait([taking], timeout=SETTLE_S)
    finally:
        if not taking.done():
            taking.cancel()
        elif not taking.cancelled():
            taking.exception()  # a sink's error: the run's own stop says what went wrong


def _ask_each(actors: list[Any], method: str, *args: Any) -> list[Any]:
    """Call ``method`` on every actor; the refs of the calls that could be made."""
    asks = []
    for actor in actors:
        with contextlib.suppress(Exception):
            asks.append(getattr(actor, method).remote(*args))
    return asks


def _answered(ray: ModuleType, refs: list[Any], deadline: float) -> list[Any]:
    """The refs done by ``deadline``: one wait for all, so a dead worker costs it once."""
    done: list[Any] = []
    with contextlib.suppress(Exception):
        left = max(0.0, deadline - time.monotonic())
        done, _ = ray.wait(refs, num_returns=len(refs), timeout=left)
    return done


class _Worker:
    """A Ray worker: one process's :class:`ItemRunner`, built on first use.

    Attributes:
        cut_short: What the units cancelled here had spent, until the driver asks for it
            (:meth:`spent`).
    """

    def __init__(
        self, job: Job, driver: dict[str, Any] | None = None, notes_at: dict[str, Any] | None = None
    ) -> None:
        self.job = job
        self.driver = driver
        self.note_file = _own_note_file(notes_at)
        self.counted = bool(notes_at and notes_at.get("counted"))
        self.written: list[dict[str, Any]] = []
        self._runner: ItemRunner | None = None
        self._units: set[asyncio.Task[Any]] = set()
        self._watch: asyncio.Task[None] | None = None
        self.taken_at = time.monotonic()
        self.orphaned = False
        self.cut_short: list[dict[str, Any]] = []
        self.notes: list[dict[str, Any]] = []
        # a worker traces on its own: LangSmith's complaints in one line
        self.traces = quiet_tracing_logs()
        quiet_unawaited_tasks()  # calls cancelled on Ctrl-C or the breaker: no raw warnings

    def _items(self) -> ItemRunner:
        if self._runner is None:
            self._runner = ItemRunner(self.job)
        return self._runner

    async def hello(self) -> dict[str, Any]:
        """Who this worker is, or why it cannot run its share of the job."""
        from debategraph import __version__

        try:
            self._items()
        except DebateConfigError as exc:
            return {"error": str(exc)}
        ray = _ray()
        return {
            "pid": os.getpid(),
            "node": ray.util.get_node_ip_address(),
            "version": __version__,
            "niceness": os.getpriority(os.PRIO_PROCESS, 0),
            "runtime_env": dict(ray.get_runtime_context().runtime_env),
            "traces": self.traces,
        }

    async def run(self, work: Work) -> tuple[list[dict[str, Any]], int, int]:
        """Run one unit: its rows, this worker's peak of in-flight calls, and its pid.

        Cancelled, it notes what the debate in progress had spent and the rows it had
        finished in :attr:`cut_short`.
        """
        rows: list[dict[str, Any]] = []
        runner = self._items()
        if self.driver is not None and (self._watch is None or self._watch.done()):
            self._watch = asyncio.ensure_future(self._watch_driver())
        if self.orphaned:
            raise asyncio.CancelledError
        unit = asyncio.current_task()
        assert unit is not None  # an actor method runs in a task
        self._units.add(unit)
        noting = CUT_SHORT.set(self.cut_short)
        taking = SPEND_NOTES.set(self.note)
        try:
            await runner.run(work, rows.append)
        except asyncio.CancelledError:
            note_rows(rows)
            raise
        finally:
            self._units.discard(unit)
            SPEND_NOTES.reset(taking)
            CUT_SHORT.reset(noting)
        return rows, runner.limiter.peak, os.getpid()

    async def flush_traces(self, timeout: float) -> bool:
        """Send the traces LangSmith's client still holds here, within about ``timeout`` s.

        Returns:
            Whether this worker traces (and flushed).
        """
        if not self.traces:
            return False
        return await asyncio.to_thread(flush_traces, timeout)

    def note(self, note: dict[str, Any]) -> None:
        """Write one spend note to this worker's file, or keep it for the driver to write.

        A note written here is kept too when the driver's spend guard counts them
        (:attr:`written`); after a failed write (a full disk) the notes go to the driver,
        all but one whose whole line reached the file (only its ``fsync`` failed).
        """
        file = self.note_file
        if file is not None and file.failure is None and file.write(note):
            if self.counted:
                self.written.append(note)
            return
        self.notes.append(note)

    async def spent(self) -> tuple[list[dict[str, Any]], tuple[list[Any], list[Any]]]:
        """What the units cancelled here spent, and the spend notes not yet taken.

        Both since the last call, then forgotten.
        """
        noted = list(self.cut_short)
        self.cut_short.clear()  # the same list: a unit still ending notes into it
        return noted, await self.take_notes()

    def _driver_gone(self, here: str) -> bool:
        """Whether the driver ended: its process, on this machine (``here``).

        A driver on another machine is taken for gone after :data:`ORPHAN_S` with no take.
        """
        driver = self.driver or {}
        if driver.get("node") == here:
            try:
                os.kill(int(driver["pid"]), 0)
            except ProcessLookupError:
                return True
            except PermissionError:
                return False
            return False
        return time.monotonic() - self.taken_at > ORPHAN_S

    async def _watch_driver(self) -> None:
        """Cancel this worker's units once its driver is gone (nobody would bill them)."""
        here = _ray().util.get_node_ip_address()
        while not self._driver_gone(here):
            await asyncio.sleep(NOTES_EVERY_S / 2)
        self.orphaned = True
        for unit in list(self._units):
            unit.cancel()

    async def take_notes(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The spend notes made here since they were last taken (then forgotten).

        Those for the driver to write, and those written here (for its spend guard).
        """
        self.taken_at = time.monotonic()
        self.orphaned = False  # the driver takes again: it lives (a stall, not its end)
        taken = self.notes[: len(self.notes)]
        del self.notes[: len(taken)]  # the same list: debates still running note into it
        written = self.written[: len(self.written)]
        del self.written[: len(written)]
        return taken, written


def _own_note_file(notes_at: dict[str, Any] | None) -> NoteFile | None:
    """A worker's own note file in the driver's folder for this run, if it can see the folder.

    The folder has a random name that the driver made: a worker that sees it shares the
    driver's storage (this machine, or a shared file system).
    """
    if not notes_at:
        return None
    folder = Path(notes_at["dir"])
    if not folder.is_dir():
        return None
    name = f"{os.getpid()}-{secrets.token_hex(4)}.jsonl"
    out_dir = folder.parent.parent
    return NoteFile(out_dir, fsync=bool(notes_at.get("fsync")), path=folder / name)
