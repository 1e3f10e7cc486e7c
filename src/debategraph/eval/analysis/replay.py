"""An intervention replayed on stored debates, with no model call.

A *replay policy* says, for one stored debate, what the arm would have answered (and paid)
had the policy been in force: stop after round ``r``, stop at the first unanimous round,
a round-0 gate, or one agent frozen on its first answer. :func:`replay` runs a policy over
every debating arm of a results directory and compares it, item by item, with the debate
as it ran: accuracy and tokens per item, collapses prevented (items whose round-0 majority
was right, which the arm as run got wrong and the policy gets right), corrections lost
(round-0 majority wrong, the arm right, the policy wrong), net points, and the paired
interval and exact McNemar p-value of the difference
(:mod:`debategraph.eval.analysis.stats`).

Which policies are exact on stored debates:

* a **truncation** (``stop-at-round``, ``stop-at-unanimity``, ``gate``) is exact: the rounds
  it keeps are the rounds that ran, and no agent read anything the policy changes. Where it
  cuts, the answer is the majority of the last round kept (first-seen tie-break), whatever
  rule the arm decided by; where it does not cut, the arm's own answer stands. A
  ``confidence>C`` gate needs round-0 confidences: an item whose rows keep none is not
  exact;
* a **freeze** (``freeze``) is exact only on items where the frozen agent never changed its
  answer before the last round, or where no peer read a changed answer of it (the turns'
  ``reads`` say so; without turns every peer is taken to read every answer): elsewhere the
  peers read answers the freeze would have replaced, and what they would have said needs
  calls the stored debate did not make. Those items are counted as *not exact*, with the
  reason, and left out of every figure.

Tokens under a policy are the stored turns' tokens of the calls it keeps; rows that keep no
turns give none (``tokens_known`` is false).

A policy is a plugin like a decision rule: ``register_policy(name, factory)``, or an entry
point in the ``debategraph.replay_policies`` group naming the factory, or given as
``package.module:ATTR[:ARGUMENT]``. A factory takes the
text after ``name:`` (or ``None``) and returns a function from a row to a :class:`Replayed`;
a bad argument raises :class:`ValueError` with one line naming what to fix.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any, cast

from msgspec import UNSET

from debategraph.eval.analysis.dynamics import grade as grade_row
from debategraph.eval.analysis.summary_fields import ratio
from debategraph.eval.analysis.transitions import paired_difference
from debategraph.eval.log.row import Row, Turn, as_row, opt
from debategraph.methods.gate import gate_from_text
from debategraph.methods.plugins import Plugin, PluginError, Registry, caller, load_object
from debategraph.policies.types import Answer
from debategraph.policies.voting import majority_vote, unanimous

POLICY_GROUP = "debategraph.replay_policies"
"""Entry-point group of replay policies: each entry point names a policy factory."""


@dataclass(frozen=True)
class Replayed:
    """One stored debate as it would have ended under a policy.

    Attributes:
        answer: The answer the arm would have given.
        rounds: The last round the policy keeps (the debate's own last round if it cuts
            nothing).
        tokens: Input and output tokens of the calls the policy keeps; ``None`` when the row
            keeps no turns.
        exact: Whether the stored debate determines the outcome; when false, ``why`` says
            which calls it would need.
        why: Empty when exact.
    """

    answer: Answer
    rounds: int
    tokens: int | None
    exact: bool = True
    why: str = ""


RowLike = Row[Any] | Mapping[str, Any]
"""A stored row, or its JSON object (checked into a :class:`Row` on the way in)."""

ReplayFn = Callable[[RowLike], Replayed]
PolicyFactory = Callable[[str | None], ReplayFn]


def grade(answer: Answer, row: Row[Any]) -> bool:
    """Whether ``answer`` is right for ``row``, graded as its final answer was."""
    return grade_row(answer, cast("Mapping[str, Any]", row))  # a Row reads as its JSON object


def _rounds(row: Row[Any]) -> list[list[Answer]]:
    return [list(r) for r in row.round_answers or ()]


def _tokens(row: Row[Any], keep: Callable[[Turn], bool]) -> int | None:
    turns = row.turns
    if turns is UNSET:
        return None
    return sum((t.input_tokens or 0) + (t.output_tokens or 0) for t in turns if keep(t))


def _as_run(row: Row[Any]) -> Replayed:
    tokens = (row.input_tokens or 0) + (row.output_tokens or 0)
    return Replayed(opt(row.answer), len(row.round_answers or ()) - 1, tokens)


def _stop_after(row: Row[Any], k: int) -> Replayed:
    """The debate cut after round ``k`` and decided by that round's majority."""
    rounds = _rounds(row)
    if k >= len(rounds) - 1:
        return _as_run(row)
    answer = majority_vote(rounds[k], tie_policy="first").answer
    return Replayed(answer, k, _tokens(row, lambda t: (t.round or 0) <= k))


def stop_at_round(argument: str | None) -> ReplayFn:
    """``stop-at-round:R``: stop after round ``R`` (0 = the initial answers) and vote."""
    try:
        k = int(argument or "")
    except ValueError:
        raise ValueError(
            f"stop-at-round needs a round number, e.g. stop-at-round:2; got {argument!r}"
        ) from None
    if k < 0:
        raise ValueError(f"stop-at-round needs a round >= 0, got {k}")
    return lambda row: _stop_after(as_row(row), k)


def stop_at_unanimity(argument: str | None) -> ReplayFn:
    """``stop-at-unanimity``: stop after the first round in which every agent agrees."""
    if argument:
        raise ValueError(f"stop-at-unanimity takes no argument, got {argument!r}")

    def replay(given: RowLike) -> Replayed:
        row = as_row(given)
        rounds = _rounds(row)
        first = next((k for k, r in enumerate(rounds) if len(r) > 1 and unanimous(r)), None)
        return _as_run(row) if first is None else _stop_after(row, first)

    return replay


def gate(argument: str | None) -> ReplayFn:
    """``gate:RULE``: a built-in round-0 gate; an item whose round-0 vote it settles stops.

    ``RULE`` is ``unanimous``, ``entropy<H`` or ``confidence>C`` (``debategraph.methods.gate``).
    """
    rule = gate_from_text(argument or "")

    def replay(given: RowLike) -> Replayed:
        row = as_row(given)
        first = _rounds(row)[0]
        confidences = list((row.round_confidences or [[]])[0] or [])
        if rule.kind == "confidence" and not any(c is not None for c in confidences):
            return Replayed(
                None,
                0,
                None,
                exact=False,
                why="no round-0 confidence kept: the gate would ask every agent for one",
            )
        confidences += [None] * (len(first) - len(confidences))
        settled = rule.settled(rule.measure(first, confidences))
        return _stop_after(row, 0) if settled else _as_run(row)

    return replay


def freeze(argument: str | None) -> ReplayFn:
    """``freeze:AGENT``: the agent keeps its round-0 answer and makes no later call.

    ``AGENT`` is a name (``a1``) or the agent's number from 1.
    """
    if not argument:
        raise ValueError("freeze needs an agent, e.g. freeze:a1 or freeze:1")

    def replay(given: RowLike) -> Replayed:
        row = as_row(given)
        rounds = _rounds(row)
        names = row.agent_names or [f"a{k + 1}" for k in range(len(rounds[0]))]
        if argument in names:
            i = names.index(argument)
        elif argument.isdigit() and 1 <= int(argument) <= len(names):
            i = int(argument) - 1
        else:
            raise ValueError(
                f"freeze:{argument}: no such agent in {row.method} "
                f"(agents {', '.join(map(str, names))}, or 1 to {len(names)})"
            )
        name, frozen = names[i], rounds[0][i]
        changed = [k for k, r in enumerate(rounds[:-1]) if r[i] != frozen]
        if changed and _read_after_change(row, name, changed[0]):
            return Replayed(
                None,
                len(rounds) - 1,
                None,
                exact=False,
                why=f"peers read {name}'s changed answer of round {changed[0]}: what they "
                "would have said needs new calls",
            )
        last = [frozen if j == i else a for j, a in enumerate(rounds[-1])]
        answer = (
            opt(row.answer)
            if last == rounds[-1]
            else majority_vote(last, tie_policy="first").answer
        )
        tokens = _tokens(row, lambda t: not (t.agent == name and (t.round or 0) > 0))
        return Replayed(answer, len(rounds) - 1, tokens)

    return replay


def _read_after_change(row: Row[Any], name: str, since: int) -> bool:
    """Whether a peer read an answer of ``name`` from round ``since`` on."""
    turns = row.turns
    if turns is UNSET:
        return True  # without turns every peer is taken to read every answer
    read = {i for t in turns if t.agent != name for i in t.reads or []}
    return any(t.id in read and t.agent == name and (t.round or 0) >= since for t in turns)


class _PolicyRegistry(Registry[PolicyFactory]):
    """The registry of replay policies: built-ins registered here, plugins as entry points."""

    def _scan(self) -> dict[str, list[EntryPoint]]:
        if self.declared is None:
            declared: dict[str, list[EntryPoint]] = {}
            for ep in entry_points(group=self.group):
                declared.setdefault(ep.name, []).append(ep)
            self.order += sorted(n for n in declared if n not in self.order)
            self.declared = declared
        return self.declared


def _check_policy(value: object, where: str) -> PolicyFactory:
    if not callable(value):
        raise PluginError(
            f"{where} is {type(value).__name__}, not a replay policy "
            "(a function factory(argument) -> function(row) -> Replayed)"
        )
    return value


_POLICIES = _PolicyRegistry("replay policy", POLICY_GROUP, _check_policy)
for _name, _factory in (
    ("stop-at-round", stop_at_round),
    ("stop-at-unanimity", stop_at_unanimity),
    ("gate", gate),
    ("freeze", freeze),
):
    _POLICIES.register(_name, _factory, f"{__name__}:{_factory.__name__}", builtin=True)


def register_policy(name: str, factory: PolicyFactory, *, replace: bool = False) -> PolicyFactory:
    """Register a replay policy ``factory(argument) -> replay(row) -> Replayed`` as ``name``.

    Raises:
        PluginError: A bad name, or another policy has the name and ``replace`` is off.
    """
    if not isinstance(name, str) or not name.strip() or ":" in name:
        raise PluginError(f"a policy name is a non-empty string without ':', got {name!r}")
    _check_policy(factory, f"policy {name!r}")
    return _POLICIES.register(name, factory, f"register_policy() in {caller()}", replace=replace)


def list_policies() -> list[str]:
    """The names of the known replay policies."""
    return _POLICIES.names()


def policy_plugins() -> list[Plugin[PolicyFactory]]:
    """Every replay policy and where it came from."""
    return _POLICIES.all()


def parse_policy(spec: str) -> ReplayFn:
    """The replay function of ``NAME[:ARGUMENT]`` (``stop-at-round:2``).

    A factory not registered is named ``package.module:ATTR[:ARGUMENT]``.

    Raises:
        ValueError: An unknown name (the message lists the known ones) or a bad argument.
    """
    name, _, argument = spec.strip().partition(":")
    try:
        if "." in name:
            attr, _, argument = argument.partition(":")
            factory = _check_policy(load_object(f"{name}:{attr}"), f"{name}:{attr}")
        else:
            factory = _POLICIES.get(name.strip())
    except PluginError as exc:
        raise ValueError(str(exc)) from None
    return factory(argument.strip() or None)


class ReplayTally:
    """One arm under one policy against the arm as it ran, one row at a time."""

    def __init__(self) -> None:
        self.items = self.exact = 0
        self.run_right = self.policy_right = 0
        self.policy_only = self.run_only = 0
        self.prevented = self.lost = 0
        self.run_tokens = self.policy_tokens = 0
        self.tokens_known = True
        self.cut = 0
        self.reasons: dict[str, int] = {}

    def add(self, row: RowLike, replayed: Replayed) -> None:
        """Add one stored debate and what the policy made of it."""
        row = as_row(row)
        self.items += 1
        if not replayed.exact:
            self.reasons[replayed.why] = self.reasons.get(replayed.why, 0) + 1
            return
        self.exact += 1
        run = bool(row.correct)
        policy = grade(replayed.answer, row)
        self.run_right += run
        self.policy_right += policy
        self.policy_only += policy and not run
        self.run_only += run and not policy
        rounds = row.round_answers or [[]]
        first = list(rounds[0])
        initially_right = grade(majority_vote(first, tie_policy="first").answer, row)
        self.prevented += initially_right and policy and not run
        self.lost += not initially_right and run and not policy
        self.cut += replayed.rounds < len(rounds) - 1
        self.run_tokens += (row.input_tokens or 0) + (row.output_tokens or 0)
        if replayed.tokens is None:
            self.tokens_known = False
        else:
            self.policy_tokens += replayed.tokens

    def result(self) -> dict[str, Any]:
        """The comparison (the fields :func:`replay` reports per arm)."""
        n = self.exact
        tokens = self.tokens_known and n > 0
        return {
            "items": self.items,
            "exact_items": n,
            "not_exact": dict(self.reasons),
            "cut_short": self.cut,
            "accuracy_as_run": ratio(self.run_right, n),
            "accuracy_replayed": ratio(self.policy_right, n),
            "tokens_known": tokens,
            "tokens_per_item_as_run": ratio(self.run_tokens, n),
            "tokens_per_item_replayed": ratio(self.policy_tokens, n) if tokens else None,
            "collapses_prevented": self.prevented,
            "corrections_lost": self.lost,
            "net_points": 100 * ratio(self.policy_right - self.run_right, n),
            "paired": paired_difference(self.policy_only, self.run_only, n),
        }


def replay(
    rows: str | os.PathLike[str] | Iterable[RowLike],
    policy: str | ReplayFn,
    *,
    arms: Iterable[str] = (),
) -> dict[str, dict[str, Any]]:
    """Replay ``policy`` on the stored debates, per debating arm, with no model call.

    Args:
        rows: A results directory (read a row at a time), or result rows read once. Failed
            rows, rows without ``round_answers`` and arms that never went past round 0 are
            left out.
        policy: ``NAME[:ARGUMENT]`` of a registered policy, or a replay function.
        arms: Only these arms (their labels); all debating arms when empty.

    Returns:
        Arm label -> :meth:`ReplayTally.result`, in first-seen order.

    Raises:
        ValueError: An unknown policy or a bad argument, or ``arms`` names no arm of the
            rows.
    """
    fn = parse_policy(policy) if isinstance(policy, str) else policy
    if isinstance(rows, str | os.PathLike):
        from debategraph.eval.analysis.results import LoadedRows, stream_rows

        rows = stream_rows(rows, LoadedRows())
    wanted = set(arms)
    tallies: dict[str, ReplayTally] = {}
    debated: set[str] = set()
    seen: set[str] = set()
    for given in rows:
        row = as_row(given)
        label = row.method
        seen.add(label)
        if (wanted and label not in wanted) or opt(row.error) is not None or not row.round_answers:
            continue
        debated.update([label] if len(row.round_answers) > 1 else [])
        tallies.setdefault(label, ReplayTally()).add(row, fn(row))
    missing = sorted(wanted - seen)
    if missing:
        raise ValueError(
            f"no arm {', '.join(missing)} in the rows (arms: {', '.join(sorted(seen))})"
        )
    return {label: t.result() for label, t in tallies.items() if label in debated}
