"""MAD-M² (Tian et al., ICLR 2026, arXiv 2603.20215): ``madm2-s``, ``madm2-o`` and ``mad``.

Round 0: every agent answers alone. Before every later round the previous round's answers
(the *memories*) are masked, then every agent answers reading only the kept memories; the
calls are stateless (no own chat history). When nothing is kept, agents answer as in round 0.
The last round is put to a majority vote; every round runs (no consensus stop).

* ``madm2-s`` (subjective masking): a phase of ``evaluation`` calls before the answer phase,
  one per memory (shared, by the ``evaluator`` role) or one per agent and memory
  (``evaluation="per_agent"``); an ``unsure`` verdict keeps the memory (loose) or masks it
  (``strict=True``). An unparseable verdict counts as ``unsure`` and is counted.
* ``madm2-o`` (objective masking): answers are asked for token logprobs; only the memory with
  the lowest sequence perplexity is kept (``code_compat=True``: the official code's median
  rule on top-1 logprobs).
* ``mad``: the same prompts, every memory kept (the paper's MAD baseline).

``method_state`` (JSON-safe, also in ``DebateResult.to_dict``):

* ``masks``: one entry per debate round and reader (``reader`` is ``"all"`` for a shared
  mask, else the agent): ``round``, ``reader``, ``rule``, ``memories`` (per memory ``id``,
  ``agent``, ``kept``, ``why`` and the evidence: ``label``/``eval``/``labelled``,
  ``perplexity`` or ``score``), ``kept`` (the kept ids) and ``summary`` (one line for the
  transcript);
* ``unparsed_judgements`` (``madm2-s``): evaluations without a readable label.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from debategraph.methods import (
    LOGPROBS_HELP,
    Call,
    DebateConfigError,
    DebateView,
    Method,
    MethodOptions,
    NoOptions,
    Phase,
    Turn,
    answer_turns,
    call,
    initial_calls,
    logprob_request,
    presets,
)
from debategraph.policies.masking import (
    Verdict,
    above_median_mask,
    lowest_perplexity_mask,
    median_threshold,
    perplexity,
    subjective_mask,
    top1_score,
)
from debategraph.policies.verdicts import VerdictReading, parse_verdict
from debategraph.prompts import madm2 as prompts

Masking = Literal["none", "subjective", "objective"]
EVALUATOR = "evaluator"


@dataclass(frozen=True, kw_only=True)
class MadM2SOptions(MethodOptions):
    """Options of ``madm2-s`` (subjective masking).

    Attributes:
        strict: An ``unsure`` verdict masks the memory (MAD-M²(S)-Strict); by default
            (loose, the paper's main setting) it keeps it.
        evaluation: ``"shared"``: one evaluation per memory by the ``evaluator`` role (the
            first agent's model unless ``role_models["evaluator"]`` is set), whose mask every
            agent reads, as the paper does for identical models; ``"per_agent"``: every agent
            judges every memory itself and reads its own mask (for agents on different models).
        verdict: Which ``<label>`` decides: ``"last_label"`` (default; the paper asks the
            evaluator to end with the label, so the last one is its verdict, tags read in any
            case) or ``"first_label"`` (the official code: the first ``<label>...</label>``,
            tags in lower case, only YES and NO decide).
    """

    strict: bool = False
    evaluation: Literal["shared", "per_agent"] = "shared"
    verdict: VerdictReading = "last_label"


@dataclass(frozen=True, kw_only=True)
class MadM2OOptions(MethodOptions):
    """Options of ``madm2-o`` (objective masking).

    Attributes:
        code_compat: Reproduce the official code instead of the paper: score each memory by
            ``exp(mean top-1 logprob)`` and keep the scores strictly above the median-position
            score (3 memories: the most confident one, or none on a tie at the top).
    """

    code_compat: bool = False


class MissingLogprobsError(DebateConfigError):
    """Objective masking met a memory without token logprobs."""


def memories(view: DebateView[Any]) -> list[Turn]:
    """The previous round's answer turns, in agent order."""
    previous = {t["agent"]: t for t in answer_turns(view.turns) if t["round"] == view.round - 1}
    return [previous[a] for a in view.agents if a in previous]


def _entry(
    view: DebateView[Any], reader: str, rule: str, items: list[dict[str, Any]]
) -> dict[str, Any]:
    """A mask record for the transcript and ``--json``."""
    kept_ids = [m["id"] for m in items if m["kept"]]
    masked = [m for m in items if not m["kept"]]
    who = "every agent reads" if reader == "all" else f"{reader} reads"
    if kept_ids:
        text = "; ".join(f"{m['id']} ({m['why']})" for m in items if m["kept"])
    else:
        text = "nothing and answers as in round 0"
    masked_text = "; ".join(f"{m['id']} ({m['why']})" for m in masked) or "none"
    summary = f"round {view.round} masks [{rule}]: {who} {text}. Masked: {masked_text}."
    return {
        "round": view.round,
        "reader": reader,
        "rule": rule,
        "memories": items,
        "kept": kept_ids,
        "summary": summary,
    }


def keep_all(view: DebateView[Any], mems: Sequence[Turn]) -> dict[str, Any]:
    """The naive rule of plain MAD: every memory is kept."""
    items = [{"id": m["id"], "agent": m["agent"], "kept": True, "why": "kept"} for m in mems]
    return _entry(view, "all", "none: keep every memory", items)


def _missing(view: DebateView[Any], memory: Turn, what: str) -> MissingLogprobsError:
    return MissingLogprobsError(
        f"{view.method.name} masks memories by {what}, but answer {memory['id']} (model "
        f"{memory['model']!r}) came back without them, though it asked: {LOGPROBS_HELP}; or "
        "use madm2-s (subjective masking), which needs no logprobs"
    )


def objective_mask(view: DebateView[MadM2OOptions], mems: Sequence[Turn]) -> dict[str, Any]:
    """Objective masking of ``mems`` (the paper's rule, or the official code's).

    Raises:
        MissingLogprobsError: A memory without the logprobs the rule needs.
    """
    options = view.options
    if options.code_compat:
        scores = []
        for m in mems:
            stats = m.get("logprobs") or {}
            if "top1_mean" not in stats:
                raise _missing(view, m, "the top-1 token logprobs (code_compat)")
            scores.append(top1_score(stats["top1_mean"]))
        threshold = median_threshold(scores)
        items = []
        for m, score, keep in zip(mems, scores, above_median_mask(scores), strict=True):
            relation = "above" if keep else "not above"
            why = f"top-1 score {score:.4f} {relation} the median {threshold:.4f}"
            items.append(
                {"id": m["id"], "agent": m["agent"], "kept": keep, "why": why, "score": score}
            )
        return _entry(view, "all", "objective, code_compat: top-1 score above the median", items)
    ppl = []
    for m in mems:
        sampled = m.get("logprobs")
        if not sampled:
            raise _missing(view, m, "perplexity from token logprobs")
        ppl.append(perplexity(sampled["mean"]))
    mask = lowest_perplexity_mask(ppl)
    lowest = min(ppl) if ppl else float("nan")
    items = []
    for m, value, keep in zip(mems, ppl, mask, strict=True):
        if keep:
            why = f"perplexity {value:.4f}, the lowest"
        elif value == lowest:
            why = f"perplexity {value:.4f}, tied with an earlier memory"
        else:
            why = f"perplexity {value:.4f} > {lowest:.4f}"
        items.append(
            {"id": m["id"], "agent": m["agent"], "kept": keep, "why": why, "perplexity": value}
        )
    return _entry(view, "all", "objective: keep the lowest perplexity", items)


def eval_id(round_: int, memory_agent: str, judge: str | None = None) -> str:
    """``r1:eval:a2`` (the shared evaluation of a2's memory) or ``r1:eval:a3>a2`` (a3's)."""
    return (
        f"r{round_}:eval:{memory_agent}"
        if judge is None
        else f"r{round_}:eval:{judge}>{memory_agent}"
    )


def judges(view: DebateView[MadM2SOptions]) -> list[str | None]:
    """Who evaluates: ``[None]`` for the shared evaluator, else every agent not cut off."""
    if view.options.evaluation == "shared":
        return [None]
    return [a for a in view.agents if a not in view.cut_off]


def evaluation_calls(view: DebateView[MadM2SOptions], mems: Sequence[Turn]) -> list[Call]:
    """One evaluation call per memory (shared) or per agent and memory (per agent)."""
    calls = []
    for judge in judges(view):
        for m in mems:
            calls.append(
                call(
                    view,
                    EVALUATOR if judge is None else judge,
                    kind="evaluation",
                    id=eval_id(view.round, m["agent"], judge),
                    reads=[m["id"]],
                    template="evaluate",
                    vars={"verdict": view.options.verdict},
                )
            )
    return calls


def subjective_masks(view: DebateView[MadM2SOptions]) -> dict[str, Any]:
    """The masks of this round from its evaluation turns; unparseable verdicts counted."""
    options = view.options
    mems = memories(view)
    by_id = {t["id"]: t for t in view.turns if t["round"] == view.round}
    rule = "subjective, " + ("strict: unsure masks" if options.strict else "loose: unsure keeps")
    entries, unparsed = [], 0
    for judge in judges(view):
        verdicts: list[Verdict] = []
        items: list[dict[str, Any]] = []
        for m in mems:
            turn = by_id[eval_id(view.round, m["agent"], judge)]
            verdict, labelled = parse_verdict(turn["text"], options.verdict)
            unparsed += not labelled
            verdicts.append(verdict)
            items.append(
                {"id": m["id"], "agent": m["agent"], "label": verdict, "labelled": labelled,
                 "eval": turn["id"]}
            )  # fmt: skip
        for item, keep in zip(items, subjective_mask(verdicts, strict=options.strict), strict=True):
            said = {"keep": "judged correct", "mask": "judged wrong", "unsure": "unsure"}
            why = said[item["label"]] + ("" if item["labelled"] else ", no label")
            item["kept"], item["why"] = keep, f"{why}, {item['eval']}"
        entries.append(_entry(view, "all" if judge is None else judge, rule, items))
    return {"entries": entries, "unparsed": unparsed}


def answer_calls(view: DebateView[Any], masks: Sequence[Mapping[str, Any]]) -> list[Call]:
    """Every agent answers reading the memories its mask keeps (nothing: as in round 0).

    A cut-off agent (the communication attack) reads only its own memory and re-checks it.
    """
    shared = next((e for e in masks if e["reader"] == "all"), None)
    own = {m["agent"]: m["id"] for m in memories(view)}
    calls = []
    for agent in view.agents:
        if agent in view.cut_off:
            reads = [own[agent]] if agent in own else []
            calls.append(call(view, agent, reads=reads, template="reflect" if reads else "initial"))
            continue
        entry = shared or next(e for e in masks if e["reader"] == agent)
        reads = list(entry["kept"])
        calls.append(call(view, agent, reads=reads, template="debate" if reads else "initial"))
    return calls


def _round_masks(view: DebateView[Any]) -> list[dict[str, Any]]:
    return [e for e in view.method_state.get("masks", []) if e["round"] == view.round]


def madm2_planner(masking: Masking) -> Any:
    """The planner of a MAD-M² method with the given masking."""

    def plan(view: DebateView[Any]) -> Phase | list[Call] | None:
        if view.round == 0:
            return initial_calls(view) if view.phase == 0 else None
        mems = memories(view)
        if masking == "subjective":
            if view.phase == 0:
                # With every judge cut off (per-agent evaluation) there is nothing to judge.
                return evaluation_calls(view, mems) or answer_calls(view, [])
            masks = _round_masks(view)
            return answer_calls(view, masks) if masks else None
        entry = objective_mask(view, mems) if masking == "objective" else keep_all(view, mems)
        return Phase(
            answer_calls(view, [entry]),
            {"masks": [*view.method_state.get("masks", []), entry]},
        )

    return plan


def observe_subjective(view: DebateView[Any]) -> dict[str, Any] | None:
    """After a round's evaluation phase, fold the verdicts into masks."""
    if view.round == 0 or view.phase != 0:
        return None
    found = subjective_masks(view)
    state = view.method_state
    return {
        "masks": [*state.get("masks", []), *found["entries"]],
        "unparsed_judgements": state.get("unparsed_judgements", 0) + found["unparsed"],
    }


def bind_objective(view: DebateView[MadM2OOptions], c: Call) -> dict[str, Any]:
    """Answers of ``madm2-o`` ask for logprobs (and the top-1 alternative in code_compat)."""
    if c["kind"] != "answer":
        return {}
    return logprob_request(1 if view.options.code_compat else 0)


def _madm2(
    name: str, description: str, masking: Masking, options: type[MethodOptions], **fields: Any
) -> Method[Any]:
    """A MAD-M² method: its prompts and sampling, three agents, one round, majority vote."""
    return Method(
        name=name,
        presets=presets.paper(presets.MADM2),
        description=description,
        plan=madm2_planner(masking),
        options=options,
        prompts=prompts.PROMPTS,
        default_agents=3,
        default_rounds=1,
        decision="majority",
        plan_node="mask",
        card="docs/methods/madm2.md",
        **fields,
    )


MADM2_S = _madm2(
    "madm2-s",
    "MAD-M²(S): stateless debate reading only the memories an evaluation judged "
    "correct (unsure keeps unless strict); majority vote of the last round.",
    "subjective",
    MadM2SOptions,
    observe=observe_subjective,
    roles=(EVALUATOR,),
    max_phases=2,
)
"""``madm2-s``: subjective masking (``MadM2SOptions``)."""

MADM2_O = _madm2(
    "madm2-o",
    "MAD-M²(O): stateless debate reading only the lowest-perplexity memory "
    "(needs token logprobs); majority vote of the last round.",
    "objective",
    MadM2OOptions,
    bind=bind_objective,
)
"""``madm2-o``: objective masking (``MadM2OOptions``)."""

MAD = _madm2(
    "mad",
    "MAD as MAD-M² compares against: stateless rounds, every agent reads all "
    "last-round answers (its own too); majority vote of the last round.",
    "none",
    NoOptions,
)
"""``mad``: the naive baseline with MAD-M²'s prompts (keep every memory)."""
