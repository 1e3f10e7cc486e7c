"""The token and call costs of summarising debates, as the GroupDebate paper counts them.

Liu et al. (arXiv 2409.14051) §3.2 and App. B count the input and output tokens of every call,
summaries included, in three quantities: ``Q`` (the question), ``Output_i^t`` (agent ``i``'s
answer in round ``t``) and the summaries. Instruction wording is not in their formulas; here
it is what a measured total has on top of the formula (see :func:`split_measured`).

Indices are 0-based and rounds are the engine's: ``outputs[i][r]`` is agent ``i``'s answer in
engine round ``r`` (the paper's round ``t = r + 1``), so ``T = len(outputs[i])``.

* Summarised MAD (Du et al.'s variant, the paper's "MAD"; Eq. 1, 3, 4, Alg. 2): every round
  each agent gets a summary of the other agents' previous answers and keeps its whole history.
* GroupDebate (Eq. 2, 5, Alg. 3): groups debate inside, one summary per group at the end of
  every stage but the last, and the first round of a later stage reads every summary.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from debategraph.policies.grouping import round_kind, stage_count


def groupdebate_calls(agents: int, total_rounds: int, groups: int, stage_rounds: int) -> int:
    """Model calls of GroupDebate: ``M·T + N·(S−1)`` (17 for M=5, T=3, N=2, R=2)."""
    return agents * total_rounds + groups * (stage_count(total_rounds, stage_rounds) - 1)


def mad_summary_calls(agents: int, total_rounds: int) -> int:
    """Model calls of summarised MAD: ``M·T + M·(T−1)`` (25 for M=5, T=3)."""
    return agents * total_rounds + agents * (total_rounds - 1)


def shared_summary_calls(agents: int, total_rounds: int) -> int:
    """Model calls of a debate with one shared summary per round (ChatEval): ``M·T + T − 1``."""
    return agents * total_rounds + total_rounds - 1


def _check_outputs(outputs: Sequence[Sequence[int]]) -> int:
    if not outputs or not outputs[0]:
        raise ValueError("outputs need at least one agent and one round")
    total_rounds = len(outputs[0])
    if any(len(row) != total_rounds for row in outputs):
        raise ValueError("every agent needs an output count for every round")
    return total_rounds


def groupdebate_tokens(
    question: int,
    outputs: Sequence[Sequence[int]],
    summaries: Sequence[Sequence[int]],
    groups: Sequence[Sequence[int]],
    stage_rounds: int,
) -> dict[str, int]:
    """GroupDebate's token total, Eq. 5 with Eq. 2 (App. B.2, Alg. 3), by part.

    Args:
        question: ``Q``, the question's tokens.
        outputs: ``outputs[i][r]``, agent ``i``'s output tokens in engine round ``r``.
        summaries: ``summaries[s][j]``, the tokens of group ``j``'s summary written at the end
            of stage ``s + 1``; one row per stage but the last.
        groups: The agent indices of every group.
        stage_rounds: ``R``, rounds per stage.

    Returns:
        ``initial`` (``M·Q + Σ Output^1``), ``summary`` (each summary call reads its group's
        latest outputs and writes the summary), ``inter`` (the first round of stages 2..S:
        ``Q``, own previous output, every summary, own output), ``intra`` (``Q``, own
        output, and every group member's previous output, one's own included), ``total``.

    Raises:
        ValueError: Shapes that do not fit each other.
    """
    total_rounds = _check_outputs(outputs)
    members = sorted(i for g in groups for i in g)
    if members != list(range(len(outputs))):
        raise ValueError("groups must hold every agent index exactly once")
    stages = stage_count(total_rounds, stage_rounds)
    if len(summaries) != stages - 1 or any(len(row) != len(groups) for row in summaries):
        raise ValueError(f"need {stages - 1} rows of {len(groups)} summary counts")
    m = len(outputs)
    parts = {"initial": m * question + sum(row[0] for row in outputs)}
    parts["summary"] = parts["inter"] = parts["intra"] = 0
    for r in range(1, total_rounds):
        if round_kind(r, stage_rounds) == "inter":
            read = summaries[r // stage_rounds - 1]
            parts["summary"] += sum(
                sum(outputs[i][r - 1] for i in g) + read[j] for j, g in enumerate(groups)
            )
            parts["inter"] += sum(question + row[r - 1] + sum(read) + row[r] for row in outputs)
        else:
            parts["intra"] += sum(
                question + outputs[i][r] + sum(outputs[k][r - 1] for k in g)
                for g in groups
                for i in g
            )
    parts["total"] = sum(parts.values())
    return parts


def mad_summary_tokens(
    question: int, outputs: Sequence[Sequence[int]], summaries: Sequence[Sequence[int]]
) -> dict[str, int]:
    """Summarised MAD's token total, Eq. 3 with Eq. 1 (App. B.1, Alg. 2), by part.

    Args:
        question: ``Q``, the question's tokens.
        outputs: ``outputs[i][r]``, agent ``i``'s output tokens in engine round ``r``.
        summaries: ``summaries[i][r]``, the tokens of the summary of the other agents'
            round-``r`` outputs written for agent ``i`` (read in round ``r + 1``); ``T − 1``
            per agent.

    Returns:
        ``initial`` (``Token^1``), ``summary`` (each summary call reads the other agents'
        outputs and writes the summary), ``debate`` (round ``t`` re-reads ``Q``, the agent's
        earlier outputs and summaries, then writes), ``total``.

    Raises:
        ValueError: Shapes that do not fit each other.
    """
    total_rounds = _check_outputs(outputs)
    if len(summaries) != len(outputs) or any(len(s) != total_rounds - 1 for s in summaries):
        raise ValueError(f"need {total_rounds - 1} summary counts for every agent")
    m = len(outputs)
    parts = {"initial": m * question + sum(row[0] for row in outputs), "summary": 0, "debate": 0}
    for r in range(1, total_rounds):
        for i in range(m):
            others = sum(outputs[k][r - 1] for k in range(m) if k != i)
            parts["summary"] += others + summaries[i][r - 1]
            history = sum(outputs[i][p] + summaries[i][p] for p in range(r))
            parts["debate"] += history + question + outputs[i][r]
    parts["total"] = sum(parts.values())
    return parts


def output_grid(turns: Iterable[Mapping[str, Any]], agents: Sequence[str]) -> list[list[int]]:
    """``outputs[i][r]``: the output tokens of every agent's answer turn in every round.

    Raises:
        ValueError: An agent without an answer turn in some round (a debate that stopped or
            skipped a call), where the formulas do not apply.
    """
    answers = [t for t in turns if t["kind"] == "answer"]
    last = max((t["round"] for t in answers), default=-1)
    grid: dict[tuple[str, int], int] = {
        (t["agent"], t["round"]): t["output_tokens"] for t in answers
    }
    missing = [(a, r) for a in agents for r in range(last + 1) if (a, r) not in grid]
    if missing:
        raise ValueError(f"no answer turn for (agent, round) {missing[:3]}")
    return [[grid[a, r] for r in range(last + 1)] for a in agents]


def split_measured(
    turns: Sequence[Mapping[str, Any]],
    formula: Mapping[str, int],
    *,
    question: int,
    history: bool,
) -> dict[str, Any]:
    """Split a debate's measured tokens into the paper's formula and what it leaves out.

    ``measured = formula + repeated_question + instruction``:

    * ``repeated_question``: with chat history, each earlier prompt of the history repeats
      the question, which the paper counts once per call (``Q`` per history prompt);
    * ``instruction``: the rest, which the formula does not model: instruction wording,
      block labels and fences (and any difference between the model's tokenizer and the
      ``Q`` given).

    Args:
        turns: Every turn of the debate (``kind``, ``agent``, ``round``, tokens).
        formula: The formula's parts with their ``total``.
        question: ``Q``.
        history: The answer calls re-send the agent's earlier prompts and answers.

    Returns:
        ``question_tokens``, ``formula`` (the parts), ``measured``, ``repeated_question``,
        ``instruction``, and ``measured_input`` / ``measured_output`` for reference.
    """
    measured_in = sum(t["input_tokens"] for t in turns)
    measured_out = sum(t["output_tokens"] for t in turns)
    repeated = question * sum(t["round"] for t in turns if t["kind"] == "answer") if history else 0
    measured = measured_in + measured_out
    return {
        "question_tokens": question,
        "formula": dict(formula),
        "measured": measured,
        "measured_input": measured_in,
        "measured_output": measured_out,
        "repeated_question": repeated,
        "instruction": measured - formula["total"] - repeated,
    }
