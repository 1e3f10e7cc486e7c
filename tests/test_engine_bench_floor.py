"""The engine benchmark's floor with du's text work sends what the engine sends."""

import asyncio
import pathlib
import sys

BENCH = pathlib.Path(__file__).parents[1] / "bench"


def test_du_text_floor_sends_the_engines_messages():
    path = list(sys.path)
    sys.path.insert(0, str(BENCH))
    try:
        import engine
        from zero_model import FixedModel
    finally:
        sys.path[:] = path  # the script puts bench/ on the path too

    class Log(FixedModel):
        sent: list = []  # noqa: RUF012 - a pydantic field (copied per instance), not shared

        async def _agenerate(self, messages, stop=None, run_manager=None, **kw):
            self.sent.append(tuple((m.type, m.content) for m in messages))
            return self._reply()

    floor, debate = Log(), Log()
    asyncio.run(engine.floor_graph(4, 2, floor, du_text=True).ainvoke({"replies": []}))
    asyncio.run(engine.time_engine(4, 2, debate))
    assert len(debate.sent) == 12
    assert sorted(floor.sent) == sorted(debate.sent)
    # The last round re-sends two exchanges and shows three peers.
    assert max(len(m) for m in floor.sent) == 5
    assert "from another agent" in floor.sent[-1][-1][1]
