"""A simulated debater: an offline, deterministic ``BaseChatModel`` for demos and tests.

It plays one agent of a debate. It reads the prompt (the question, the peers' solutions in
fenced blocks, the requested answer format, whether it is asked to answer, summarise or
evaluate) and answers in that format. It knows right answers only through the oracle
(computed for arithmetic, looked up for the bundled GSM8K items) and can replay real GPT-3
solutions as initial GSM8K answers. It is a simulation: no accuracy claim rests on it.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, ClassVar

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatResult

from debategraph.models.oracle import (
    REPLAY_SOURCES,
    Known,
    gsm8k_index,
    index_loaded,
    lookup,
    needs_index,
)
from debategraph.policies.answers import canonical_number, extract_answer
from debategraph.policies.tokens import _PIECE_RE, estimate_tokens
from debategraph.policies.types import Answer, TaskKind
from debategraph.prompts.common import INDEPENDENCE_CUE, OWN_ANSWER_LABEL, SUMMARY_REQUEST
from debategraph.prompts.decision import BALLOT_HEADER, JUDGE_HEADER

_QUESTION_RE = re.compile(r"^Question: (.+)$", re.MULTILINE)
_CHOICE_LINE_RE = re.compile(r"^([A-J])\) ", re.MULTILINE)
_BLOCK_RE = re.compile(r"```\n(.*?)\n```", re.DOTALL)
_OWN_BLOCK_RE = re.compile(re.escape(OWN_ANSWER_LABEL) + r":\n```\n(.*?)\n```", re.DOTALL)
_LABELLED_BLOCK_RE = re.compile(r"^([^\n]+):\n```\n(.*?)\n```", re.MULTILINE | re.DOTALL)
_REACHED_RE = re.compile(r"^Answers reached: (.+)$", re.MULTILINE)
_REACHED_ITEM_RE = re.compile(r"\s*(.+?) \(([^()]*)\)\s*(?:;|$)")
_CHOICE_MARK_RE = re.compile(r"\([A-J]\)")
_ADVERSARY_RE = re.compile(r"argue convincingly that the answer is (.+?)\.(?:\s|$)")
_FINAL_LINE_RE = re.compile(r"\n?A: ?(.+)\s*$")
_RANK_REQUEST = "line of the form 'Ranking: "
_CHOOSE_CUE = "choose among the answers shown"
_AGAINST_RE = re.compile(r"<label>\s*(?:NO|WRONG|INCORRECT)\s*</label>", re.IGNORECASE)
_DEFER_RE = re.compile(r"end instead with the line '([^']+)'")
_LETTERED_BLOCK_RE = re.compile(r"^Response ([A-Z]):\n```\n(.*?)\n```", re.MULTILINE | re.DOTALL)
_CANDIDATE_RE = re.compile(r"^C([1-9]\d*): (.+)$", re.MULTILINE)
_POINTS_ASKED_RE = re.compile(r"share out (\d+) points")
_FILLER = (
    "Let me double-check each step before answering.",
    "I will keep the units consistent throughout.",
    "Each intermediate value follows from the previous line.",
    "Re-reading the question, nothing else is being asked.",
)

# Per-agent default profiles, cycled: skill, conformity, stubbornness, overconfidence, verbosity.
DEFAULT_PROFILES: tuple[tuple[float, float, float, float, float], ...] = (
    (0.75, 0.45, 0.35, 0.4, 1.0),
    (0.60, 0.60, 0.20, 0.6, 0.8),
    (0.70, 0.40, 0.40, 0.5, 1.2),
    (0.55, 0.70, 0.15, 0.7, 0.9),
    (0.65, 0.50, 0.30, 0.5, 1.1),
)


def _stable_seed(*parts: object) -> int:
    return zlib.crc32("\x1f".join(map(str, parts)).encode())


@lru_cache(maxsize=4096)  # the turns of the debates in flight (64 x 9 at --concurrency 64)
def _parsed(text: str, task: TaskKind, num_choices: int | None) -> Answer:
    """``extract_answer``, cached by text: every agent of a round reads the same peer turns."""
    return extract_answer(text, task, num_choices)


def _tokens(text: str) -> int:
    """``estimate_tokens(text)``, counted line by line with the lines' counts cached.

    No estimated token spans whitespace, so the count of a text is the sum of its lines'
    counts; the peers' answers (and a history) reappear line for line in many prompts.
    """
    return sum(map(_line_tokens, text.split("\n")))


@lru_cache(maxsize=8192)  # the lines of the debates in flight; more only grows the heap
def _line_tokens(line: str) -> int:
    return estimate_tokens(line)


def _question_of(contents: Sequence[str]) -> str | None:
    """The last ``Question:`` line of the conversation (the latest message that has one)."""
    for content in reversed(contents):
        found = _QUESTION_RE.findall(content)
        if found:
            return str(found[-1])
    return None


@dataclass(frozen=True)
class _Scene:
    prompt: str
    question: str
    known: Known | None
    task: TaskKind
    num_choices: int | None
    mode: str
    wants_confidence: bool
    peers: list[str]
    own_previous: str | None
    independent: bool
    adversary: str | None
    choose: bool = False
    defer: str | None = None
    flagged: bool = False

    @cached_property
    def peer_answers(self) -> list[Answer]:
        """The answer of every peer block, each parsed once (and cached across calls).

        A summary block stands for the answers it lists, each once per agent that reached it.
        """
        answers: list[Answer] = []
        for block in self.peers:
            reached = _reached(block)
            if reached is None:
                answers.append(_parsed(block, self.task, self.num_choices))
            else:
                answers += [a for a, n in reached for _ in range(n)]
        return answers


def _mode(prompt: str, summary: bool) -> str:
    """What the prompt asks for: a summary, a judge's decision, a ranking, a verdict, an answer."""
    if summary:
        return "summary"
    if JUDGE_HEADER in prompt:
        return "judge"
    if _RANK_REQUEST in prompt:
        return "rank"
    return "evaluate" if _asks_verdict(prompt) else "answer"


def _asks_verdict(prompt: str) -> bool:
    """Whether the prompt itself asks for a ``<label>`` verdict (not a quoted reply that has one).

    A revision that shows an earlier verdict in a fenced block asks for an answer.
    """
    return "<label>" in prompt and "<label>" in _BLOCK_RE.sub("", prompt)


def _reached(summary: str) -> list[tuple[str, int]] | None:
    """The ``(answer, agents)`` pairs of a summary's ``Answers reached:`` line, if it has one."""
    line = _REACHED_RE.search(summary)
    if line is None:
        return None
    return [
        (answer.strip(), len([w for w in who.split(",") if w.strip()]))
        for answer, who in _REACHED_ITEM_RE.findall(line.group(1))
    ]


class SimulatedDebater(BaseChatModel):
    """Offline stand-in for a chat model that debates; deterministic for a seed.

    Attributes:
        agent: Which agent it plays; part of every random draw.
        seed: Seed of every random draw.
        skill: Chance of a right initial answer (when not replaying real solutions).
        conformity: Tendency to adopt the peers' majority.
        stubbornness: Resistance to changing its answer.
        overconfidence: How confident it claims to be when wrong.
        verbosity: Output length multiplier.
        format_error: Chance of a response without any answer (an abstention).
        replay: GSM8K source whose real solutions are replayed as initial answers
            (``6b_finetuning``, ``6b_verification``, ``175b_finetuning``,
            ``175b_verification``); ``None`` draws answers from ``skill``.
        latency_s: Simulated seconds per call.
        logprobs: Attach OpenAI-style token logprobs to ``response_metadata``: ``None`` (the
            default) when the call asks for them (``logprobs=True``), as OpenAI's API does;
            ``True`` always; ``False`` never, even when asked (a model or server without
            logprobs). A call bound with ``top_logprobs=k`` (k >= 1) also gets the top-1
            alternative per token.
    """

    sends_top_k: ClassVar[bool] = True  # takes every sampling setting (and ignores it)
    agent: str = "a1"
    seed: int = 0
    skill: float = 0.7
    conformity: float = 0.5
    stubbornness: float = 0.3
    overconfidence: float = 0.5
    verbosity: float = 1.0
    format_error: float = 0.0
    replay: str | None = None
    latency_s: float = 0.0
    logprobs: bool | None = None

    @property
    def _llm_type(self) -> str:
        return "debategraph-simulated"

    @property
    def model_label(self) -> str:
        """Readable label for transcripts."""
        return f"simulated:{self.replay}" if self.replay else "simulated"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> SimulatedDebater:
        """The simulated debater with tools: it takes them and never calls one.

        So a tool-using agent (``langchain.agents.create_agent``) runs offline on it.
        """
        return self

    @classmethod
    def for_agent(
        cls, index: int, *, agent: str, seed: int = 0, **overrides: Any
    ) -> SimulatedDebater:
        """The default debater for agent number ``index`` (profiles cycle over five)."""
        skill, conformity, stubbornness, overconfidence, verbosity = DEFAULT_PROFILES[
            index % len(DEFAULT_PROFILES)
        ]
        fields: dict[str, Any] = {
            "agent": agent,
            "seed": seed,
            "skill": skill,
            "conformity": conformity,
            "stubbornness": stubbornness,
            "overconfidence": overconfidence,
            "verbosity": verbosity,
            "replay": REPLAY_SOURCES[index % len(REPLAY_SOURCES)],
        }
        return cls(**{**fields, **overrides})

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.latency_s:
            time.sleep(self.latency_s)
        return self._respond(messages, **_logprob_request(kwargs))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        if not index_loaded():
            question = _question_of([str(m.content) for m in messages])
            if needs_index(question or str(messages[-1].content)):
                # The first lookup reads the bundled data file: keep that off the event loop.
                await asyncio.to_thread(gsm8k_index)
        return self._respond(messages, **_logprob_request(kwargs))

    def _respond(
        self, messages: Sequence[BaseMessage], asked: bool = False, top: int = 0
    ) -> ChatResult:
        scene = self._read(messages)
        rng = random.Random(_stable_seed(self.seed, self.agent, scene.prompt, len(messages)))
        if scene.mode == "summary":
            text, answer = self._summarize(scene), None
        elif scene.mode == "rank":
            text, answer = self._rank(scene, rng), None
        elif scene.mode == "evaluate":
            text, answer = self._evaluate(scene, rng), None
        elif scene.mode == "judge":
            text, answer = self._judge(scene, rng)
        else:
            text, answer = self._answer(scene, rng)
            if BALLOT_HEADER in scene.prompt:
                text = f"{text}\n{self._ballot(scene, answer)}"
        message = AIMessage(
            content=text,
            usage_metadata=UsageMetadata(
                input_tokens=(n_in := sum(_tokens(str(m.content)) for m in messages)),
                output_tokens=(n_out := _tokens(text)),
                total_tokens=n_in + n_out,
            ),
            response_metadata={"model_name": self.model_label, "finish_reason": "stop"},
        )
        if self.logprobs or (self.logprobs is None and asked):
            right = scene.known is not None and answer == scene.known.answer
            message.response_metadata["logprobs"] = self._logprobs(text, right, rng, top)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _read(self, messages: Sequence[BaseMessage]) -> _Scene:
        prompt = str(messages[-1].content)
        question = _question_of([str(m.content) for m in messages]) or prompt
        choices = _CHOICE_LINE_RE.findall(prompt)
        if "\\boxed{answer}" in prompt:
            task: TaskKind = "number"
        elif "in parentheses, for example" in prompt:
            task = "choice"
        else:
            task = "text"
        previous = [str(m.content) for m in messages[:-1] if isinstance(m, AIMessage)]
        # A stateless agent is shown its own latest answer in a labelled block: its own, not
        # a peer's.
        own = _OWN_BLOCK_RE.search(prompt)
        if own is not None and not previous:
            previous = [own.group(1)]
        peers = _BLOCK_RE.findall(_OWN_BLOCK_RE.sub("", prompt))
        summary = SUMMARY_REQUEST in prompt
        if summary and task == "text":
            # A summary request states no answer format: read the answers as they were given.
            if any("\\boxed{" in b for b in peers):
                task = "number"
            elif any(_CHOICE_MARK_RE.search(b) for b in peers):
                task = "choice"
        adversary = _ADVERSARY_RE.search(prompt)
        defer = _DEFER_RE.search(prompt)
        return _Scene(
            prompt=prompt,
            question=question,
            known=lookup(question),
            task=task,
            num_choices=len(choices) or None,
            mode=_mode(prompt, summary),
            wants_confidence="Confidence:" in prompt,
            peers=peers,
            own_previous=previous[-1] if previous else None,
            independent=INDEPENDENCE_CUE in prompt,
            adversary=adversary.group(1).strip() if adversary else None,
            choose=_CHOOSE_CUE in prompt,
            flagged=any(_AGAINST_RE.search(block) for block in peers[-1:]),
            defer=defer.group(1) if defer else None,
        )

    def _parse(self, scene: _Scene, text: str) -> Answer:
        return _parsed(text, scene.task, scene.num_choices)

    def _answer(self, scene: _Scene, rng: random.Random) -> tuple[str, Answer]:
        if rng.random() < self.format_error:
            return "I could not finish working this out in time.", None
        if scene.adversary is not None:
            body = (
                "The other solutions overlook a key detail. Working it through carefully, "
                f"the result is {scene.adversary}."
            )
            return self._finish(scene, body, scene.adversary, rng, confident=True), scene.adversary
        if scene.choose and scene.peers:
            return self._choose(scene, rng)
        first_reasoning, first_answer = self._initial(scene)
        if not scene.peers and scene.own_previous is None:
            return self._finish(scene, first_reasoning, first_answer, rng), first_answer
        own = self._parse(scene, scene.own_previous) if scene.own_previous else first_answer
        new = self._update(scene, own, rng)
        body = self._revision_text(scene, own, new, first_reasoning if new == first_answer else "")
        return self._finish(scene, body, new, rng), new

    def _initial(self, scene: _Scene) -> tuple[str, Answer]:
        """The independent first answer: a pure function of (seed, agent, question)."""
        rng = random.Random(_stable_seed(self.seed, self.agent, scene.question, "initial"))
        known = scene.known
        if known is None:
            return self._guess(scene, rng)
        if self.replay and self.replay in known.solutions:
            solution = known.solutions[self.replay]["solution"]
            final = _FINAL_LINE_RE.search(solution)
            answer = canonical_number(final.group(1)) if final else None
            return _FINAL_LINE_RE.sub("", solution).strip(), answer
        if rng.random() < self.skill:
            return self._worked(known, known.answer), known.answer
        wrong = [s for s in known.solutions.values() if not s["is_correct"]]
        if wrong:
            solution = rng.choice(wrong)["solution"]
            final = _FINAL_LINE_RE.search(solution)
            answer = canonical_number(final.group(1)) if final else None
            return _FINAL_LINE_RE.sub("", solution).strip(), answer
        slip = self._wrong(known.answer, rng)
        return self._worked(known, slip), slip

    def _worked(self, known: Known, answer: str) -> str:
        if known.operands:
            a, b, c, d, e, f = known.operands
            return (
                f"First the products: {b}*{c} = {b * c} and {e}*{f} = {e * f}.\n"
                f"Then {a} + {b * c} + {d} - {e * f}, which gives {answer}."
            )
        if answer == known.answer and known.rationale:
            return known.rationale
        return f"Working through the quantities step by step, I get {answer}."

    def _guess(self, scene: _Scene, rng: random.Random) -> tuple[str, Answer]:
        if scene.task == "choice":
            letter = chr(ord("A") + rng.randrange(scene.num_choices or 4))
            return f"Weighing the options, {letter} seems most plausible.", letter
        if scene.task == "number":
            value = str(rng.randint(1, 100))
            return f"I cannot verify this exactly; my best estimate is {value}.", value
        word = rng.choice(("yes", "no"))
        return f"On balance the answer seems to be {word}.", word

    @staticmethod
    def _wrong(answer: str, rng: random.Random) -> str:
        value = float(answer)
        candidates = [value + 1, value - 1, value + 2, value * 2, value - 10, value + 10]
        pick = rng.choice([c for c in candidates if c != value])
        return canonical_number(f"{pick:.10g}") or str(pick)

    def _update(self, scene: _Scene, own: Answer, rng: random.Random) -> Answer:
        peers = scene.peer_answers
        support = Counter(a for a in peers if a is not None)
        truth = scene.known.answer if scene.known else None
        pull = self.conformity * (0.3 if scene.independent else 1.0) * (1 - self.stubbornness)
        flagged = scene.flagged and truth is not None and own != truth
        if flagged and rng.random() < 0.5 * self.skill:
            return truth  # the latest quoted verdict finds its answer wrong: it looks again
        majority, votes = support.most_common(1)[0] if support else (None, 0)
        strong = majority is not None and majority != own and votes * 2 >= len(peers)
        if truth is not None and own == truth:
            if strong and own not in support and rng.random() < pull * (1 - self.skill):
                return majority
            return own
        if truth is not None and truth in support:
            share = support[truth] / max(len(peers), 1)
            fix = self.skill * (0.6 + 0.4 * share) * (1.2 if scene.independent else 1.0)
            if rng.random() < min(fix, 0.95):
                return truth
        if strong and rng.random() < pull * votes / max(len(peers), 1):
            return majority
        if truth is not None and rng.random() < 0.15 * self.skill:
            return truth
        return own

    def _revision_text(self, scene: _Scene, own: Answer, new: Answer, reasoning: str) -> str:
        peers = scene.peer_answers
        tally = ", ".join(f"{a} ({n})" for a, n in Counter(p for p in peers if p).most_common())
        seen = f"The other solutions give: {tally}. " if tally else ""
        if new == own:
            verdict = "After re-checking each step, I find no error in my reasoning and keep it."
        else:
            verdict = f"Re-checking the steps, I now see that {new} is correct, not {own}."
        known = scene.known
        if not reasoning and known is not None and new is not None:
            reasoning = self._worked(known, new)
        return f"My previous answer was {own}. {seen}{verdict}\n{reasoning}".strip()

    def _finish(
        self, scene: _Scene, body: str, answer: Answer, rng: random.Random, confident: bool = False
    ) -> str:
        filler = " ".join(rng.sample(_FILLER, min(len(_FILLER), round(self.verbosity * 2))))
        lines = [filler, body] if filler else [body]
        if scene.task == "number":
            lines.append(f"The final answer is \\boxed{{{answer}}}.")
        elif scene.task == "choice":
            lines.append(f"My final choice is ({answer}).")
        else:
            lines.append(f"Answer: {answer}")
        if scene.wants_confidence:
            right = scene.known is not None and answer == scene.known.answer
            if confident or right:
                conf = 0.75 + 0.2 * rng.random()
            else:
                conf = 0.35 + 0.6 * self.overconfidence * rng.random()
            lines.append(f"Confidence: {conf:.2f}")
        return "\n".join(lines)

    def _summarize(self, scene: _Scene) -> str:
        holders: dict[str, list[str]] = {}
        for who, block in _LABELLED_BLOCK_RE.findall(scene.prompt):
            answer = _parsed(block, scene.task, scene.num_choices)
            if answer is not None:
                holders.setdefault(answer, []).append(who)
        if not holders:
            return "The agents gave no clear answer yet."
        lines = "; ".join(
            f"{', '.join(who)} "
            + ("reasons its" if len(who) == 1 else "reason their")
            + f" way to {answer}"
            for answer, who in holders.items()
        )
        reached = "; ".join(f"{answer} ({', '.join(who)})" for answer, who in holders.items())
        return f"{lines}.\nAnswers reached: {reached}"

    def _choose(self, scene: _Scene, rng: random.Random) -> tuple[str, Answer]:
        """A judge's choice among the answers shown; it may defer when offered a line to.

        Agreeing sides are taken; otherwise it recognises the right answer among them with
        its skill, else defers if it may, else takes the best-supported answer.
        """
        support = Counter(a for a in scene.peer_answers if a is not None)
        truth = scene.known.answer if scene.known else None
        if not support:
            pick: Answer = None
        elif len(support) == 1:
            pick = next(iter(support))
        elif truth in support and rng.random() < self.skill:
            pick = truth
        elif scene.defer is not None:
            pick = None
        else:
            pick = support.most_common(1)[0][0]
        if pick is None and scene.defer is not None:
            # No number in a deferral: a reader must not take one for an answer.
            return (
                f"The sides still disagree; neither has shown the other wrong.\n{scene.defer}",
                None,
            )
        body = f"Weighing both sides' steps, {pick} is the better-supported answer."
        if scene.defer is not None and ":" in scene.defer:
            # Offered a decision line (the per-round judge): it names the side it prefers,
            # sides shown in turn (the affirmative first).
            side = "affirmative" if scene.peer_answers[0::2].count(pick) else "negative"
            return f"{body}\n{scene.defer.split(':')[0]}: {side}", pick
        return self._finish(scene, body, pick, rng), pick

    def _rank(self, scene: _Scene, rng: random.Random) -> str:
        """Rank lettered responses: the answer it now holds first, then by support, then A-Z.

        The answer it holds is its own first answer after reading the responses, as in a
        debate round.
        """
        shown = [
            (label, _parsed(block, scene.task, scene.num_choices))
            for label, block in _LETTERED_BLOCK_RE.findall(scene.prompt)
        ]
        held = self._update(scene, self._initial(scene)[1], rng)
        support = Counter(a for _, a in shown if a is not None)
        order = sorted(
            shown, key=lambda s: (s[1] is None or s[1] != held, -support[s[1] or ""], s[0])
        )
        notes = " ".join(f"Response {label} reaches {answer}." for label, answer in shown)
        ranking = ", ".join(label for label, _ in order)
        return f"{notes} I checked each against my own working.\nRanking: {ranking}"

    def _evaluate(self, scene: _Scene, rng: random.Random) -> str:
        target = self._parse(scene, scene.peers[-1]) if scene.peers else None
        truth = scene.known.answer if scene.known else None
        if truth is None or target is None or rng.random() < 0.1:
            label = "NOT SURE"
        elif rng.random() < 0.5 + 0.45 * self.skill:
            label = "YES" if target == truth else "NO"
        else:
            label = "NO" if target == truth else "YES"
        return f"I checked the solution's steps against the question. <label>{label}</label>"

    def _judge(self, scene: _Scene, rng: random.Random) -> tuple[str, Answer]:
        """A judge's verdict: the right answer when an agent gave it and the judge sees it.

        It sees it with chance ``skill``; otherwise it takes the answer most agents give.
        """
        support = Counter(a for a in scene.peer_answers if a is not None)
        truth = scene.known.answer if scene.known else None
        if truth is not None and truth in support and rng.random() < self.skill:
            pick: Answer = truth
        elif support:
            pick = support.most_common(1)[0][0]
        else:
            return self._answer(scene, rng)
        tally = ", ".join(f"{a} ({n})" for a, n in support.most_common())
        body = f"The agents answered: {tally}. Checking each line of reasoning, {pick} holds up."
        return self._finish(scene, body, pick, rng), pick

    def _ballot(self, scene: _Scene, answer: Answer) -> str:
        """The ballot line asked for: its own answer first, then the peers' by support."""
        candidates = {c: int(i) for i, c in _CANDIDATE_RE.findall(scene.prompt)}
        if answer is not None and answer not in candidates:
            candidates[answer] = 0  # C0: the answer it gives now
        support = Counter(a for a in scene.peer_answers if a is not None)
        ranked = sorted(candidates, key=lambda c: (c != answer, -support[c], candidates[c]))
        labels = [f"C{candidates[c]}" for c in ranked]
        if not labels:
            return "Ballot:"
        if "approve every candidate" in scene.prompt:
            return f"Ballot: {labels[0]}"
        points = _POINTS_ASKED_RE.search(scene.prompt)
        if points is not None:
            total = int(points.group(1))
            if len(labels) == 1:
                return f"Ballot: {labels[0]}={total}"
            first = round(total * 0.7)
            return f"Ballot: {labels[0]}={first}, {labels[1]}={total - first}"
        return "Ballot: " + " > ".join(labels)

    def _logprobs(self, text: str, right: bool, rng: random.Random, top: int) -> dict[str, Any]:
        mean = 0.08 + (0.12 if right else 0.45) * (1.2 - self.skill)
        alt = random.Random(_stable_seed(self.seed, self.agent, text, "top"))
        content = []
        for piece in _PIECE_RE.findall(text):
            logprob = -rng.expovariate(1 / mean)
            tops = []
            if top:  # the sampled token is the argmax 70% of the time, else a likelier one is
                best = logprob if alt.random() < 0.7 else logprob * alt.random()
                token = piece if best == logprob else "<alt>"
                tops = [{"token": token, "logprob": best, "bytes": list(token.encode())}]
            content.append(
                {
                    "token": piece,
                    "logprob": logprob,
                    "bytes": list(piece.encode()),
                    "top_logprobs": tops,
                }
            )
        return {"content": content}


def _logprob_request(kwargs: dict[str, Any]) -> dict[str, Any]:
    """What a call asks of the logprobs: whether it wants them, and how many alternatives."""
    return {"asked": bool(kwargs.get("logprobs")), "top": int(kwargs.get("top_logprobs") or 0)}
