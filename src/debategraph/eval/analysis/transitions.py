"""Why a debate helped or hurt: the transition ledger, the oracle gap, conformity, vulnerability.

Read from stored rows, one row at a time (:class:`TransitionTally`), no model call. Per item:

* the **ledger** (DebateLedger, NeurIPS 2026 E&D): the majority of round 0 right or wrong
  against the majority of the last round right or wrong: *preserved* (right, right),
  *collapse* (right, wrong), *correction* (wrong, right), *unrepaired* (wrong, wrong). Both
  majorities are taken as :mod:`debategraph.eval.analysis.dynamics` takes them (first-seen
  tie-break; a vote of abstentions is wrong), whatever rule the arm decided by;
* the **collapse onset**: for a collapse, the first round whose majority was wrong (the
  round in which the right majority first broke); an item whose right majority broke and
  came back is counted as *broke and recovered*;
* the **oracle gap** ("The Cost of Consensus", arXiv 2605.00914): the share of items whose
  right answer was in the pool (any agent, any round) less the share the arm's final answer
  got right, in points, with a paired interval;
* **conformity** (the same source's modal adoption): of the answers given after reading
  peers whose single most common answer differed from the reader's previous one, the share
  that took that answer;
* **vulnerability** (the same source's contextual fragility): of the answers given after
  reading peers by an agent that was right the round before, the share that were wrong
  (a switch to abstaining is not counted as wrong: the flips table counts it).

Who read whom comes from the turns' ``reads`` where the rows keep their turns; then the two
rates are also split by the peer read. Rows without turns are taken to have read every
peer's previous answer each round (the all-to-all exchange of ``du``); ``reads_known`` says
on how many items that was not needed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from msgspec import UNSET

from debategraph.eval.analysis.dynamics import AnyTurn, Reading, answer_counts, reading_of
from debategraph.eval.analysis.stats import mcnemar_exact, paired_score_interval
from debategraph.eval.analysis.summary_fields import Row, RowLike, ratio, wilson_interval
from debategraph.eval.log.row import as_row
from debategraph.policies.types import Answer

LEDGER = ("preserved", "collapse", "correction", "unrepaired")
"""The four transitions of an item, in report order."""


def ledger_kind(initial_right: bool, final_right: bool) -> str:
    """The ledger transition of an item from its initial and final majorities' correctness."""
    if initial_right:
        return "preserved" if final_right else "collapse"
    return "correction" if final_right else "unrepaired"


def rate(k: int, n: int) -> dict[str, Any]:
    """``k`` of ``n`` as a rate with its 95% Wilson interval (NaN without trials)."""
    low, high = wilson_interval(k, n)
    return {"k": k, "n": n, "rate": ratio(k, n), "interval": [low, high]}


def paired_difference(a_only: int, b_only: int, n: int) -> dict[str, Any]:
    """``(a_only - b_only) / n`` with Tango's paired interval and the exact McNemar p-value."""
    low, high = paired_score_interval(a_only, b_only, n) if n else (ratio(0, 0),) * 2
    return {
        "a_only": a_only,
        "b_only": b_only,
        "n": n,
        "difference": ratio(a_only - b_only, n),
        "interval": [low, high],
        "p_value": mcnemar_exact(a_only, b_only),
    }


def modal_answer(answers: Sequence[Answer]) -> Answer:
    """The one most common non-abstaining answer of ``answers``; ``None`` on a tie or none."""
    counts = answer_counts(answers)
    if not counts:
        return None
    top = max(counts.values())
    leaders = [answer for answer, count in counts.items() if count == top]
    return leaders[0] if len(leaders) == 1 else None


def _modal_of(peers: Sequence[tuple[str, Answer]]) -> Answer:
    """:func:`modal_answer` of the peers' answers (two peers, the common case, without counting)."""
    if len(peers) == 2:
        first, second = peers[0][1], peers[1][1]
        if second is None or first == second:
            return first
        return second if first is None else None
    return modal_answer([answer for _, answer in peers])


def _names(row: Row, agents: int) -> list[str]:
    names = row.agent_names
    if names is not UNSET and len(names) == agents:
        return [str(n) for n in names]
    return [f"a{k + 1}" for k in range(agents)]


def _peer_label(row: Row, name: str, names: list[str]) -> str:
    models = row.agent_models or []
    k = names.index(name) if name in names else -1
    return f"{name} ({models[k]})" if 0 <= k < len(models) else name


def readings(row: RowLike) -> tuple[list[tuple[int, int, list[tuple[str, Answer]]]], bool]:
    """Every answer given after reading peers: ``(round, agent index, [(peer, answer)])``.

    From the turns' ``reads`` when the row keeps its turns and their reads (peers' answer
    turns only; a reader of no peer answer is left out), else every other agent's
    previous-round answer.

    Returns:
        The readings, and whether they came from the turns.
    """
    typed = as_row(row)
    rounds = typed.round_answers or []
    if not rounds:
        return [], False
    names = _names(typed, len(rounds[0]))
    turns: list[AnyTurn] = typed.turns or []
    out: list[tuple[int, int, list[tuple[str, Answer]]]] = []
    kept_reads = any(
        t.reads is not UNSET and (t.round or 0) > 0 and t.kind == "answer" for t in turns
    )  # turns without their reads (a row cut down by hand) say nothing of who read whom
    if kept_reads:
        by_id = {(None if t.id is UNSET else t.id): t for t in turns}
        last = len(rounds)
        for turn in turns:
            k = turn.round or 0
            if turn.kind != "answer" or k < 1 or k >= last:
                continue
            agent = None if turn.agent is UNSET else turn.agent
            if agent not in names:
                continue
            peers = []
            for i in turn.reads or ():
                read = by_id.get(i)
                if read is not None and read.kind == "answer":
                    peer = read.agent
                    if peer in names and peer != agent:
                        peers.append((str(peer), None if read.answer is UNSET else read.answer))
            if peers:
                out.append((k, names.index(str(agent)), peers))
        return out, True
    for k in range(1, len(rounds)):
        for i in range(len(rounds[k])):
            peers = [(names[j], a) for j, a in enumerate(rounds[k - 1]) if j != i]
            if peers:
                out.append((k, i, peers))
    return out, False


class TransitionTally:
    """One arm's transitions, built one row at a time.

    Failed rows and rows without ``round_answers`` are left out.
    """

    def __init__(self, method: str) -> None:
        self.method = method
        self.items = self.reads_known = self.final_right = self.pool_right = 0
        self.ledger = dict.fromkeys(LEDGER, 0)
        self.onset: Counter[int] = Counter()
        self.recovered = 0
        self.pool_only = self.final_only = 0
        self.conform = [0, 0]
        self.vulnerable = [0, 0]
        self.conform_by_peer: dict[str, list[int]] = {}
        self.vulnerable_by_peer: dict[str, list[int]] = {}
        self.longest = 0

    def add(self, row: Row) -> None:
        """Add one row of this arm."""
        if row.error is not UNSET or not row.round_answers:
            return
        reading = reading_of(row)
        rounds = reading.rounds
        self.items += 1
        self.longest = max(self.longest, len(rounds))
        right = reading.majorities
        kind = ledger_kind(right[0], right[-1])
        self.ledger[kind] += 1
        if right[0] and not all(right):
            if kind == "collapse":
                self.onset[right.index(False)] += 1
            else:
                self.recovered += 1
        correct = bool(row.correct)
        in_pool = reading.pool_right
        self.final_right += correct
        self.pool_right += in_pool
        self.pool_only += in_pool and not correct
        self.final_only += correct and not in_pool
        self._add_readings(reading)

    def _add_readings(self, reading: Reading) -> None:
        row, rounds = reading.row, reading.rounds
        if len(rounds) == 1:  # no answer after reading peers: only whether reads are known
            self.reads_known += bool(row.turns)
            return
        found, known = readings(row)
        self.reads_known += known
        graded = reading.graded
        names = _names(row, len(rounds[0]))
        labels: dict[str, str] = {}
        conform, vulnerable = self.conform, self.vulnerable
        conform_by_peer, vulnerable_by_peer = self.conform_by_peer, self.vulnerable_by_peer
        for k, i, peers in found:
            before, after = rounds[k - 1][i], rounds[k][i]
            mode = _modal_of(peers)
            if mode is not None and mode != before:
                conform[0] += after == mode
                conform[1] += 1
            right_before = before is not None and graded[k - 1][i]
            wrong_after = after is not None and not graded[k][i]
            if right_before:
                vulnerable[0] += wrong_after
                vulnerable[1] += 1
            if not known:
                continue
            for peer, answer in peers:
                label = labels.get(peer)
                if label is None:
                    label = labels[peer] = _peer_label(row, peer, names)
                if answer is not None and answer != before:
                    slot = conform_by_peer.get(label)
                    if slot is None:
                        slot = conform_by_peer[label] = [0, 0]
                    slot[0] += after == answer
                    slot[1] += 1
                if right_before:
                    slot = vulnerable_by_peer.get(label)
                    if slot is None:
                        slot = vulnerable_by_peer[label] = [0, 0]
                    slot[0] += wrong_after
                    slot[1] += 1

    def result(self) -> dict[str, Any]:
        """The arm's transitions (the fields of ``summary.json``'s ``transitions``)."""
        n = self.items
        ledger = self.ledger
        initially_right = ledger["preserved"] + ledger["collapse"]
        initially_wrong = ledger["correction"] + ledger["unrepaired"]
        return {
            "items": n,
            "reads_known": self.reads_known,
            "ledger": dict(ledger),
            "initial_majority_accuracy": ratio(initially_right, n),
            "final_majority_accuracy": ratio(ledger["preserved"] + ledger["correction"], n),
            "net": paired_difference(ledger["correction"], ledger["collapse"], n),
            "collapse_rate": rate(ledger["collapse"], initially_right),
            "correction_rate": rate(ledger["correction"], initially_wrong),
            "collapse_onset": {str(k): self.onset[k] for k in sorted(self.onset)},
            "broke_and_recovered": self.recovered,
            "oracle": {
                "pool_accuracy": rate(self.pool_right, n),
                "final_accuracy": rate(self.final_right, n),
                "gap": paired_difference(self.pool_only, self.final_only, n),
            },
            "conformity": {
                **rate(*self.conform),
                "by_peer": {p: rate(*c) for p, c in sorted(self.conform_by_peer.items())},
            },
            "vulnerability": {
                **rate(*self.vulnerable),
                "by_peer": {p: rate(*c) for p, c in sorted(self.vulnerable_by_peer.items())},
            },
        }


class TransitionsByArm:
    """:func:`transitions_by_arm`, fed one row at a time."""

    def __init__(self) -> None:
        self.tallies: dict[tuple[str, str], TransitionTally] = {}

    def add(self, row: Row) -> None:
        """Add one row of any arm."""
        key = (row.method, row.dataset or "")
        tally = self.tallies.get(key)
        if tally is None:
            tally = self.tallies[key] = TransitionTally(key[0])
        tally.add(row)

    def result(self) -> dict[str, dict[str, Any]]:
        """What :func:`transitions_by_arm` returns for the rows added."""
        datasets: Counter[str] = Counter(m for m, _ in self.tallies)
        return {
            (m if datasets[m] == 1 else f"{m} [{d}]"): t.result()
            for (m, d), t in self.tallies.items()
            if t.longest > 1
        }


def transitions_by_arm(rows: Iterable[RowLike]) -> dict[str, dict[str, Any]]:
    """Per debating arm (one whose rows went past round 0 at least once), its transitions.

    Args:
        rows: Result rows, read once, in any order.

    Returns:
        Arm label -> :meth:`TransitionTally.result`, in first-seen order; an arm with rows
        of several datasets is keyed ``label [dataset]`` per dataset.
    """
    tallies = TransitionsByArm()
    for row in rows:
        tallies.add(as_row(row))
    return tallies.result()


def transitions_of(rows: Iterable[RowLike]) -> dict[str, Any]:
    """One arm's transitions from its rows (:class:`TransitionTally` over them)."""
    tally = TransitionTally("")
    for row in rows:
        tally.add(as_row(row))
    return tally.result()
