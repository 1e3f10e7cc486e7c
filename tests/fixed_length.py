"""A chat model whose outputs have fixed token lengths, for checking token formulas."""

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from debategraph.policies.tokens import estimate_tokens
from debategraph.prompts.common import SUMMARY_REQUEST


class FixedLength(BaseChatModel):
    """Answers in exactly ``answer_tokens`` tokens and summarises in ``summary_tokens``.

    Usage is counted like the simulated debater's: the ``estimate_tokens`` of every message
    in, of the reply out.
    """

    answer_tokens: int = 12
    summary_tokens: int = 7
    answer: str = "15"

    @property
    def _llm_type(self) -> str:
        return "fixed-length"

    def reply(self, summary: bool) -> str:
        """The reply of a summary or an answer call, of exactly the configured length."""
        tail = f"({self.answer})" if summary else f"\\boxed{{{self.answer}}}"
        size = (self.summary_tokens if summary else self.answer_tokens) - estimate_tokens(tail)
        text = "ok " * size + tail
        assert estimate_tokens(text) == (self.summary_tokens if summary else self.answer_tokens)
        return text

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        text = self.reply(SUMMARY_REQUEST in str(messages[-1].content))
        n_in = sum(estimate_tokens(str(m.content)) for m in messages)
        n_out = estimate_tokens(text)
        usage = {"input_tokens": n_in, "output_tokens": n_out, "total_tokens": n_in + n_out}
        message = AIMessage(content=text, usage_metadata=usage)
        return ChatResult(generations=[ChatGeneration(message=message)])
