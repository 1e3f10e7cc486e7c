"""A reasoning model's reply, split into its thinking and its answer part (pure text).

Servers without a reasoning parser put the thinking in the reply's text between ``<think>``
and ``</think>``. Three shapes arrive:

* ``<think>...</think>answer``: the whole thought, then the answer;
* ``...</think>answer``: the chat template opened the thought in the prompt, so the reply
  starts mid-thought and only the closing tag is there;
* ``<think>...`` with no closing tag: the model was cut off while thinking; all of it is
  thinking, there is no answer part.

Text with no tag at all is all answer. Servers with a reasoning parser send the thinking in a
message field instead (``reasoning_content``, ``reasoning``); that is read beside the call node
(:mod:`debategraph.nodes.thinking`), which hands the text part to :func:`split_thinking` too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

THINKING_FIELDS = ("reasoning_content", "reasoning")
"""The message fields servers with a reasoning parser send a reply's thinking in (both
names are in use: DeepSeek's API and llama.cpp ``reasoning_content``, vLLM and OpenRouter
``reasoning``)."""

_OPEN = re.compile(r"<think>", re.IGNORECASE)
_CLOSE = re.compile(r"</think>", re.IGNORECASE)


@dataclass(frozen=True)
class Split:
    """A reply in two parts.

    Attributes:
        thinking: What the model thought before answering ("" when none was sent).
        answer: The answer part: what peers, judges and parsers read.
        cut_off: The reply ended inside its thinking (an opened thought never closed).
    """

    thinking: str
    answer: str
    cut_off: bool = False


def split_thinking(text: str) -> Split:
    """``text`` split into its thinking and its answer part (see the module's shapes).

    A reply may hold several thoughts (``<think>a</think>x<think>b</think>y``): each is
    thinking, the text between and after them is the answer.
    """
    close = _CLOSE.search(text)
    opened = _OPEN.search(text)
    if close is None:
        if opened is None:
            return Split("", text)
        before, after = text[: opened.start()], text[opened.end() :]
        return Split(after.strip(), before.strip(), cut_off=not before.strip())
    thoughts: list[str] = []
    answer: list[str] = []
    rest = text
    first = True
    while True:
        close = _CLOSE.search(rest)
        opened = _OPEN.search(rest)
        if close is None:
            if opened is None:
                answer.append(rest)
                break
            answer.append(rest[: opened.start()])
            thoughts.append(rest[opened.end() :])  # a later thought cut off
            break
        if opened is not None and opened.start() < close.start():
            answer.append(rest[: opened.start()])
            thoughts.append(rest[opened.end() : close.start()])
        elif first:  # only the closing tag: the reply started mid-thought
            thoughts.append(rest[: close.start()])
        else:  # a stray closing tag in the answer part
            answer.append(rest[: close.start()])
        rest = rest[close.end() :]
        first = False
    joined = "\n\n".join(t.strip() for t in thoughts if t.strip())
    return Split(joined, "".join(answer).strip())


def joined_thinking(*parts: str) -> str:
    """Thinking from several places (a message field, tags in the text), in order."""
    return "\n\n".join(p.strip() for p in parts if p and p.strip())


def with_thinking(answer: str, thinking: str) -> str:
    """An answer part shown with its thinking before it, clearly delimited.

    Peers read this when a study sets ``peer_reasoning="full"``.
    """
    if not thinking:
        return answer
    return f"[thinking]\n{thinking}\n[/thinking]\n\n{answer}"


THINKING_MODES = ("on", "off")
"""A ``thinking`` setting's words; a whole number of at least 1 is a thinking-token budget."""


def thinking_problem(value: object) -> str | None:
    """What is wrong with a ``thinking`` value (``on``, ``off`` or a budget), or ``None``."""
    if isinstance(value, str) and value.strip().lower() in THINKING_MODES:
        return None
    text = str(value).strip()
    if not isinstance(value, bool) and text.isdigit() and int(text) >= 1:
        return None
    return f"must be on, off or a thinking-token budget of at least 1, got {value!r}"


def thinking_body(value: str | int) -> dict[str, object]:
    """The request-body fields that carry a ``thinking`` value to an OpenAI-compatible server.

    ``off``/``on`` set the chat template's ``enable_thinking`` (Qwen3-family templates on vLLM
    and SGLang read ``chat_template_kwargs``); a budget ``N`` keeps thinking on and sends
    ``thinking_token_budget: N`` (vLLM's request field, honoured when the server runs with a
    reasoning configuration) and the template hint ``thinking_budget`` (SGLang, Qwen3's
    template).
    """
    word = str(value).strip().lower()
    if word in THINKING_MODES:
        return {"chat_template_kwargs": {"enable_thinking": word == "on"}}
    budget = int(word)
    return {
        "chat_template_kwargs": {"enable_thinking": True, "thinking_budget": budget},
        "thinking_token_budget": budget,
    }
