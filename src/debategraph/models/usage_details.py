"""The parts of a reply's token usage that a provider bills apart: cache reads, reasoning.

OpenAI states them in ``usage.prompt_tokens_details.cached_tokens`` (input tokens served from
its prompt cache, billed at a lower price) and ``usage.completion_tokens_details.
reasoning_tokens`` (hidden reasoning, billed as output); vLLM (with
``--enable-prompt-tokens-details``) and llama.cpp send the same fields. ``langchain-openai``
puts them in ``usage_metadata`` as ``input_token_details.cache_read`` and
``output_token_details.reasoning`` (``priority_cache_read`` and the like under a service
tier). Both are *parts of* ``input_tokens`` and ``output_tokens``, not additions to them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DETAIL_FIELDS = {
    "cached_input_tokens": ("input_token_details", "cache_read"),
    "reasoning_tokens": ("output_token_details", "reasoning"),
}
"""Turn field -> (``usage_metadata`` details key, detail name)."""


def usage_details(usage: Mapping[str, Any] | None) -> dict[str, int]:
    """The cached input tokens and reasoning tokens a reply's usage states.

    Args:
        usage: A LangChain ``usage_metadata`` (or ``None``).

    Returns:
        ``cached_input_tokens`` and ``reasoning_tokens``, each only when the provider stated
        it (a server that says nothing leaves it unknown, not 0).
    """
    found: dict[str, int] = {}
    for field, (group, name) in DETAIL_FIELDS.items():
        details = (usage or {}).get(group)
        if not isinstance(details, Mapping):
            continue
        values = [
            v
            for k, v in details.items()
            if (k == name or k.endswith(f"_{name}")) and isinstance(v, int) and v >= 0
        ]
        if values:
            found[field] = sum(values)
    return found
