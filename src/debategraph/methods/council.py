"""The LLM-council pattern: method ``council`` and its ranking rule ``council-rank``.

Round 0: every member (agent) answers alone. Round 1 has two phases:

1. **rankings** (call ``r1:rank:{member}``, kind ``evaluation``): every member reads every
   member's answer, its own among them (``rank_own``; as llm-council's stage 2), in member
   order (``shuffle`` gives each ranker a seeded order of its own), labelled ``Response A``,
   ``B``, ... with no names, assesses each and ends with ``Ranking: <letters, best
   first>``. The letters' owners travel in the call's ``vars["labels"]``; after the phase
   each ranking is read back into member names (``method_state["rankings"]``) and
   aggregated as llm-council does: a member's average position, 1 for first, over the
   rankings that place it (``method_state["average_rank"]``; lower is better).
2. **chairman** (call ``r1:chairman``, role ``chairman``): reads every member's answer, in
   member order, and every member's assessment and ranking (as llm-council's stage 3;
   ``chair_reads="standing"``: the average ranks instead), and writes the final answer.

The decision is the chairman's answer. ``decision="council-rank"`` decides from the rankings
alone: the answer of the member with the best average rank (ties: the earlier member).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from debategraph.methods import (
    Call,
    DebateConfigError,
    DebateView,
    Decision,
    Method,
    MethodOptions,
    Phase,
    PromptInput,
    Trajectory,
    answer_format,
    call,
    decide_by_rule,
    fenced,
    initial_calls,
    presets,
    question_block,
    role_decision,
)

CHAIRMAN = "chairman"
MAX_EARLY_STOP_MEMBERS = 64
RANKING_LINE = re.compile(
    r"^[ \t>#*_`-]*+(?:final[ \t]++)?ranking[ \t*_`]*+(?:\([^)\n]{0,40}\)[ \t*_`]*+)?"
    r"(?::[ \t*_`]*+(.*)|[ \t*_`]*+)$",
    re.IGNORECASE | re.MULTILINE,
)
LETTER = re.compile(r"\b(?!I[ \t]++[a-z])([A-Z])\b(?!['’])")  # not the pronoun: "I think C"
RANKING_ITEM = re.compile(
    r"^[ \t>*_`]*+(?:(?:\d{1,2}[.)]|[-*+•])[ \t]*+)?[*_`]*+(?:Response[ \t]++)?[*_`]*+([A-Z])\b"
    r"(?![ \t]*+[a-z])"
)


@dataclass(frozen=True, kw_only=True)
class CouncilOptions(MethodOptions):
    """Options of ``council``.

    Attributes:
        rank_own: Each ranker ranks every answer, its own among them, unmarked (as
            llm-council's stage 2); ``False`` shows it only the others' answers.
        shuffle: Show each ranker the answers in an order of its own (seeded); ``False``
            (as llm-council) keeps member order for everyone. The labels stay anonymous.
        chair_reads: What the chairman reads besides the answers: ``rankings``, every
            ranker's whole assessment (as llm-council's stage 3), or ``standing``, only the
            combined ranking (each answer's average rank).
        early_stop: Ask the rankers one after another, in member order, and stop asking
            once the remaining rankings cannot change the leader of the average ranks
            (``False``, as llm-council: every member ranks, all at once).
        self_votes: ``count`` (as llm-council) a ranker's place for its own answer in the
            average ranks, or ``drop`` it, the other places kept as written (the packaged
            fork's ``exclude_self_votes``).
    """

    rank_own: bool = True
    shuffle: bool = False
    chair_reads: Literal["rankings", "standing"] = "rankings"
    early_stop: bool = False
    self_votes: Literal["count", "drop"] = "count"


View = DebateView[CouncilOptions]


def letter(i: int) -> str:
    """The label of the ``i``-th response shown (0 -> ``A``)."""
    return chr(ord("A") + i)


def shown_order(view: View, ranker: str, shown: Sequence[str]) -> list[str]:
    """The order ``ranker`` sees the answers in: member order, or seeded per run and item."""
    order = list(shown)
    if view.options.shuffle:
        key = view.state.get("item_id") or view.state.get("question") or ""
        random.Random(f"{view.context.seed}\x1f{key}\x1f{ranker}").shuffle(order)
    return order


@dataclass(frozen=True)
class RankingReading:
    """What a ranking reply was read as.

    Attributes:
        ranked: The members it puts in order, best first (each at its first place).
        found: Whether it has a ranking label (``Ranking:`` or ``FINAL RANKING:``).
        unknown: Letters it names that were not shown (skipped).
        repeated: Letters it names again after their first place (skipped).
    """

    ranked: list[str]
    found: bool
    unknown: list[str]
    repeated: list[str]


def _list_letter(line: str) -> str | None:
    """The letter of one list line under a ranking label (``1. Response C``, ``- **B**``)."""
    found = RANKING_ITEM.match(line)
    return found.group(1) if found else None


def parse_ranking(text: str, labels: Sequence[str]) -> RankingReading:
    """Read the ranking of a reply: its last ranking label and the letters after it.

    The label is ``Ranking:`` or llm-council's ``FINAL RANKING:``, with or without
    Markdown around it, a note in brackets (``Ranking (best first):``) or, as a heading of
    its own (``## Final ranking``), the colon. The letters are those on the label's line
    (``Ranking: C, A, B``, ``Ranking: Response C > Response A``) or, when that line has
    none, the list that follows it, one letter a line (``1. Response C``, ``2. A``,
    ``- B``; blank lines between items are passed over), up to the first line that is not a
    list item. Letters that were not shown or that repeat are skipped and reported; a reply
    without a label is an empty ranking (it places nobody).

    Args:
        text: The ranker's reply.
        labels: The member behind each letter, ``labels[0]`` behind ``A``.
    """
    heads = list(RANKING_LINE.finditer(text))
    if not heads:
        return RankingReading([], False, [], [])
    head = heads[-1]
    letters = [m.group(1) for m in LETTER.finditer(head.group(1) or "")]
    if not letters:
        for line in text[head.end() :].splitlines():
            named = _list_letter(line)
            if named is not None:
                letters.append(named)
            elif line.strip():
                break
    ranked: list[str] = []
    unknown: list[str] = []
    repeated: list[str] = []
    for found in letters:
        i = ord(found) - ord("A")
        if i >= len(labels):
            unknown.append(found)
        elif labels[i] in ranked:
            repeated.append(found)
        else:
            ranked.append(labels[i])
    return RankingReading(ranked, True, unknown, repeated)


def read_ranking(text: str, labels: Sequence[str]) -> list[str]:
    """The members a ranking reply puts in order, best first (see :func:`parse_ranking`).

    Args:
        text: The ranker's reply.
        labels: The member behind each letter, ``labels[0]`` behind ``A``.
    """
    return parse_ranking(text, labels).ranked


def _places(
    rankings: Mapping[str, Sequence[str]], members: Sequence[str], exclude_self: bool
) -> dict[str, list[int]]:
    """Each member's places (1 for first) over the rankings, by ranker order."""
    places: dict[str, list[int]] = {m: [] for m in members}
    for ranker, ranked in rankings.items():
        for place, member in enumerate(ranked, start=1):
            if member in places and not (exclude_self and member == ranker):
                places[member].append(place)
    return places


def average_rank(
    rankings: Mapping[str, Sequence[str]], members: Sequence[str], *, exclude_self: bool = False
) -> dict[str, float]:
    """Each member's mean position (1 for first) over the rankings that place it.

    llm-council's aggregate: a ranking that leaves a member out adds nothing to its mean,
    and a member no ranking places has none (it is absent).

    Args:
        rankings: Each ranker's ranking, best first, in member names.
        members: The members.
        exclude_self: Leave out each ranker's place for itself (the other places stay as
            written), as the packaged fork's ``exclude_self_votes`` does.
    """
    places = _places(rankings, members, exclude_self)
    return {m: sum(p) / len(p) for m, p in places.items() if p}


def standing(ranks: Mapping[str, float], members: Sequence[str]) -> list[str]:
    """Members best first: lowest average rank, unplaced members last, ties to the earlier."""
    return sorted(members, key=lambda m: (m not in ranks, ranks.get(m, 0.0), members.index(m)))


def _best_mean(places: Sequence[int], firsts: int) -> Fraction | None:
    """The lowest mean a member can reach: its places plus ``firsts`` first places."""
    if not places and not firsts:
        return None
    return Fraction(sum(places) + firsts, len(places) + firsts)


def _worst_mean(places: Sequence[int], lasts: Sequence[int]) -> Fraction:
    """The highest mean a placed member can reach by some of the ``lasts`` places.

    A ranking may place the member last (at its length) or leave it out; adding the
    largest places first, while each raises the mean, gives the highest mean.
    """
    total, count = Fraction(sum(places)), len(places)
    for last in sorted(lasts, reverse=True):
        if last * count <= total:
            break
        total += last
        count += 1
    return total / count


def settled_leader(
    rankings: Mapping[str, Sequence[str]],
    members: Sequence[str],
    pending: Sequence[Sequence[str]],
    *,
    pending_rankers: Sequence[str] = (),
    exclude_self: bool = False,
) -> str | None:
    """The leader of the average ranks if no pending ranking can change it, else ``None``.

    The leader is the first of :func:`standing` (lowest average rank, ties to the earlier
    member). A pending ranking shows some members and may place each shown member anywhere
    from first to last (its length) or leave it out, as the reader allows. The leader is
    settled when no other member can end with a lower average rank (or an equal one while
    being the earlier member) even if every pending ranking that shows it puts it first and
    every pending ranking that shows the leader puts the leader last or leaves it out, as
    hurts the leader more. A member that is unplaced and shown by no pending ranking stays
    last.

    Args:
        rankings: The rankings made, best first, in member names.
        members: The members, in member order (the tie order).
        pending: The members each ranking still to come would show.
        pending_rankers: Who makes each pending ranking (needed with ``exclude_self``).
        exclude_self: A ranker's place for itself does not count (see
            :func:`average_rank`); it still takes a place in its ranking.
    """
    places = _places(rankings, members, exclude_self)
    leader = standing(average_rank(rankings, members, exclude_self=exclude_self), members)[0]
    if not pending:
        return leader
    if not places[leader]:
        return None
    makers = list(pending_rankers) or [""] * len(pending)

    def can_place(member: str, shown: Sequence[str], maker: str) -> bool:
        return member in shown and not (exclude_self and member == maker)

    lasts = [
        len(shown) for shown, r in zip(pending, makers, strict=True) if can_place(leader, shown, r)
    ]
    worst = _worst_mean(places[leader], lasts)
    for rival in members:
        if rival == leader:
            continue
        firsts = sum(can_place(rival, shown, r) for shown, r in zip(pending, makers, strict=True))
        best = _best_mean(places[rival], firsts)
        if best is None:
            continue
        if best < worst or (best == worst and members.index(rival) < members.index(leader)):
            return None
    return leader


def _rankings_made(view: View) -> dict[str, list[str]]:
    """The rankings made this round so far, in member names, by ranker."""
    return {
        t["agent"]: read_ranking(t["text"], (t.get("vars") or {}).get("labels", []))
        for t in view.turns
        if t["round"] == view.round and t["kind"] == "evaluation"
    }


def _chaired(view: View) -> bool:
    return any(t["agent"] == CHAIRMAN and t["round"] == view.round for t in view.turns)


def plan(view: View) -> Phase | list[Call] | None:
    """Round 0: the answers; round 1: the anonymous rankings, then the chairman.

    With ``early_stop`` the rankings come one a phase, in member order, until
    :func:`settled_leader` finds the leader settled; then the chairman answers and
    ``method_state["ranking_stop"]`` records the leader, the rankings made and the rankers
    not asked.
    """
    if view.round == 0:
        if len(view.agents) < 2:
            raise DebateConfigError(
                f"council needs at least 2 members to rank each other, got {len(view.agents)}"
            )
        if view.options.early_stop and len(view.agents) > MAX_EARLY_STOP_MEMBERS:
            raise DebateConfigError(
                f"council's early_stop asks one ranker a phase, for at most "
                f"{MAX_EARLY_STOP_MEMBERS} members; with {len(view.agents)} set "
                "early_stop=false"
            )
        return initial_calls(view) if view.phase == 0 else None
    if _chaired(view):
        return None  # the chairman has answered (at once when every member was cut off)
    latest = view.latest_ids()
    members = [a for a in view.agents if a in latest]
    early = view.options.early_stop
    stopped: dict[str, Any] = {}
    if view.phase == 0 or early:
        made = _rankings_made(view)
        own = view.options.rank_own
        pending: list[tuple[str, list[str]]] = []
        for ranker in [m for m in members if m not in view.cut_off and m not in made]:
            shown = shown_order(view, ranker, [m for m in members if own or m != ranker])
            if shown:
                pending.append((ranker, shown))
        if early and pending and made:
            leader = settled_leader(
                made,
                members,
                [shown for _, shown in pending],
                pending_rankers=[ranker for ranker, _ in pending],
                exclude_self=view.options.self_votes == "drop",
            )
            if leader is not None:
                skipped = [ranker for ranker, _ in pending]
                stopped = {"leader": leader, "rankings": len(made), "skipped": skipped}
                pending = []
        calls = [
            call(
                view,
                ranker,
                kind="evaluation",
                id=f"r{view.round}:rank:{ranker}",
                reads=[latest[m] for m in shown],
                template="rank",
                vars={"labels": shown},
            )
            for ranker, shown in pending[: 1 if early else None]
        ]
        if calls:
            return calls
    answers = [latest[m] for m in members]
    state = {"ranking_stop": stopped} if stopped else {}
    if view.options.chair_reads == "rankings":
        assessments = [
            t
            for t in view.turns
            if t["round"] == view.round and t["kind"] == "evaluation" and t["agent"] in members
        ]
        assessments.sort(key=lambda t: members.index(t["agent"]))
        keys = [
            [members.index(m) + 1 for m in (t.get("vars") or {}).get("labels", [])]
            for t in assessments
        ]
        chair_call = call(
            view,
            CHAIRMAN,
            reads=answers + [t["id"] for t in assessments],
            template="chair",
            vars={"answers": len(answers), "keys": keys},
        )
        return Phase([chair_call], state) if state else [chair_call]
    ranks = view.method_state.get("average_rank") or {}
    order = [[members.index(m) + 1, ranks.get(m)] for m in standing(ranks, members)]
    chair_call = call(
        view,
        CHAIRMAN,
        reads=answers,
        template="chair",
        vars={"answers": len(answers), "standing": order},
    )
    return Phase([chair_call], state) if state else [chair_call]


def observe(view: View) -> dict[str, Any] | None:
    """After the rankings: each ranking in member names and each member's average rank.

    Also the rankers whose reply places nobody (``unranked``) and the letters skipped
    (``ranking_flaws``: unknown or repeated, per ranker).
    """
    if view.round != 1 or (view.phase != 0 and not view.options.early_stop):
        return None
    readings = {
        t["agent"]: parse_ranking(t["text"], (t.get("vars") or {}).get("labels", []))
        for t in view.turns
        if t["round"] == 1 and t["kind"] == "evaluation"
    }
    rankings = {ranker: reading.ranked for ranker, reading in readings.items()}
    flaws = {
        ranker: {"unknown": reading.unknown, "repeated": reading.repeated}
        for ranker, reading in readings.items()
        if reading.unknown or reading.repeated
    }
    return {
        "rankings": rankings,
        "average_rank": average_rank(
            rankings, list(view.agents), exclude_self=view.options.self_votes == "drop"
        ),
        "unranked": [ranker for ranker, reading in readings.items() if not reading.ranked],
        "ranking_flaws": flaws,
    }


def stop(view: View) -> bool:
    """After the chairman's round."""
    return view.round >= 1


def decide(view: View) -> Decision:
    """The chairman's answer, or the run's decision rule (``council-rank`` takes rankings)."""
    state = view.method_state
    if view.context.decision is not None:
        return decide_by_rule(
            view,
            rankings=state.get("rankings") or {},
            exclude_self=view.options.self_votes == "drop",
        )
    return role_decision(view, CHAIRMAN, average_rank=state.get("average_rank", {}))


def council_rank(
    trajectory: Trajectory,
    *,
    rankings: Mapping[str, Sequence[str]] | None = None,
    exclude_self: bool = False,
) -> Decision:
    """The answer of the member the anonymous rankings put first, by average rank.

    Args:
        trajectory: The members' answers.
        rankings: Each ranker's ranking, best first, in member names (what ``council``
            records in ``method_state["rankings"]``).
        exclude_self: Leave out each ranker's place for itself (``self_votes="drop"``).

    Returns:
        The decision, with each member's average rank (1 is first; a member no ranking
        places has none and comes last) and the winner as evidence; ties go to the earlier
        member.

    Raises:
        ValueError: The answers differ and there are no rankings (a method other than
            ``council`` records none), or the rankings name someone who is not a member.
    """
    finals = trajectory.final_answers()
    members = list(trajectory.agents)
    if rankings is None:
        if len(set(finals)) <= 1:
            return Decision(finals[0] if finals else None, "council-rank", {"average_rank": {}})
        raise ValueError(
            "council-rank decides from the council's anonymous rankings; only method "
            "'council' records them"
        )
    strangers = sorted({m for ranked in rankings.values() for m in ranked} - set(members))
    if strangers:
        raise ValueError(f"the rankings name {strangers}, who are not among {members}")
    ranks = average_rank(rankings, members, exclude_self=exclude_self)
    winner = standing(ranks, members)[0]
    evidence = {"average_rank": ranks, "winner": winner}
    return Decision(finals[members.index(winner)], "council-rank", evidence)


def initial(p: PromptInput) -> str:
    """A member's own answer."""
    return f"Solve this problem step by step.\n\n{question_block(p)}\n\n{answer_format(p)}"


def rank(p: PromptInput) -> str:
    """A member's assessment and ranking of the council's answers, shown anonymously."""
    blocks = "\n\n".join(
        f"Response {letter(i)}:\n{fenced(t['text'])}" for i, t in enumerate(p.peers)
    )
    example = ", ".join(letter(i) for i in reversed(range(len(p.peers))))
    return (
        "The members of a council answered the problem below; their responses follow in "
        "no particular order, without names. Check each one's reasoning and result, say in "
        "a sentence or two what it gets right and wrong, then order them from most to least "
        "accurate. End with one line of the form 'Ranking: <every letter once, best first>', "
        f"for example 'Ranking: {example}'.\n\n{question_block(p)}\n\n{blocks}"
    )


def _key_note(key: Sequence[int]) -> str:
    """Which answer each letter of a ranking stands for, where not simply in order."""
    if list(key) == list(range(1, len(key) + 1)):
        return ""
    pairs = ", ".join(f"Response {letter(i)} is Answer {n}" for i, n in enumerate(key))
    return f" (its {pairs})"


def chair(p: PromptInput) -> str:
    """The chairman's final answer from the members' answers and their rankings."""
    count = p.vars.get("answers", len(p.peers))
    blocks = "\n\n".join(
        f"Answer {i}:\n{fenced(t['text'])}" for i, t in enumerate(p.peers[:count], start=1)
    )
    if p.vars.get("keys") == []:  # every member was cut off from the others: no rankings
        return (
            "You chair a council whose members each answered the problem below; their "
            "answers follow. Weigh them on their merits and give the council's final "
            f"answer.\n\n{blocks}\n\n{question_block(p)}\n\n{answer_format(p)}"
        )
    if "keys" in p.vars:
        assessments = "\n\n".join(
            f"Ranking {j}{_key_note(key)}:\n{fenced(t['text'])}"
            for j, (t, key) in enumerate(zip(p.peers[count:], p.vars["keys"], strict=True), 1)
        )
        return (
            "You chair a council whose members each answered the problem below and then "
            "assessed and ranked the answers without knowing who wrote them. Their answers "
            "follow, then each member's assessment and ranking; a ranking's Response A is "
            "Answer 1, Response B is Answer 2, and so on, unless it gives its own key. Weigh "
            "the arguments on their merits, using the rankings as the members' judgement, not "
            f"as a vote you must follow, and give the council's final answer.\n\n{blocks}\n\n"
            f"{assessments}\n\n{question_block(p)}\n\n{answer_format(p)}"
        )
    order = "; ".join(
        f"Answer {n} (average rank {rank:.2f})" if rank is not None else f"Answer {n} (unranked)"
        for n, rank in p.vars["standing"]
    )
    return (
        "You chair a council whose members each answered the problem below and then ranked "
        "the answers without knowing who wrote them. Their answers follow, with the combined "
        "ranking (each answer's average place; 1 is best). Weigh the arguments on their "
        "merits, using the ranking as the members' judgement, not as a vote you must "
        f"follow, and give the council's final answer.\n\n{blocks}\n\nCombined ranking, best "
        f"first: {order}\n\n{question_block(p)}\n\n{answer_format(p)}"
    )


def round_bound(view: View) -> int:
    """One round after the answers."""
    return 1


COUNCIL = Method(
    name="council",
    presets=presets.paper(presets.COUNCIL),
    description="LLM council: every member answers, ranks the council's answers "
    "anonymously, and a chairman writes the final answer from the answers and the rankings.",
    prompts={"initial": initial, "rank": rank, "chair": chair},
    plan=plan,
    observe=observe,
    stop=stop,
    decide=decide,
    takes_decision=True,
    options=CouncilOptions,
    roles=(CHAIRMAN,),
    decision=CHAIRMAN,
    default_agents=4,
    default_rounds=1,
    debates=False,
    max_phases=MAX_EARLY_STOP_MEMBERS + 1,
    round_bound=round_bound,
    plan_node="rankings",
    card="docs/methods/council.md",
)
"""The ``council`` method."""
