"""Every Python block of the README and docs/ runs as written (on the simulated debaters).

A file's blocks run top to bottom in one namespace, as a reader would paste them, in a
temporary working directory. A block that starts with ``# not run:`` is shown, not run (it
needs a key or a server); the reason follows on that line.
"""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parents[1]
BLOCK_RE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
MODULE_TAG = "# debate_review/__init__.py\n"


def blocks(path: Path) -> list[str]:
    return BLOCK_RE.findall(path.read_text(encoding="utf-8"))


# Pages whose example runs a whole evaluation: the fast loop leaves them to the whole suite.
WHOLE_EVALUATIONS = {"noise-control.md"}


def block_pages() -> list[Any]:
    pages = [p for p in FILES if blocks(p)]
    assert {p.name for p in pages} >= WHOLE_EVALUATIONS, "a page named slow has no Python block"
    slow = pytest.mark.slow
    return [pytest.param(p, marks=slow) if p.name in WHOLE_EVALUATIONS else p for p in pages]


@pytest.mark.parametrize("path", block_pages(), ids=lambda p: p.name)
def test_python_blocks_run_as_written(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    module = types.ModuleType(f"doc_{path.stem.replace('-', '_')}")
    monkeypatch.setitem(sys.modules, module.__name__, module)  # dataclasses look it up
    for k, code in enumerate(blocks(path)):
        if code.startswith("# not run:"):
            continue
        try:
            exec(compile(code, f"{path.name}[block {k}]", "exec"), module.__dict__)
        except Exception as exc:
            raise AssertionError(f"{path.name}, block {k} failed: {exc!r}\n{code}") from exc


def test_the_method_guide_shows_the_example_module_as_it_is():
    module = (ROOT / "examples/review_plugin/debate_review/__init__.py").read_text()
    shown = [b for b in blocks(ROOT / "docs/writing-a-method.md") if b.startswith(MODULE_TAG)]
    assert len(shown) >= 5
    for code in shown:
        assert code.removeprefix(MODULE_TAG) in module
    pyproject = (ROOT / "examples/review_plugin/pyproject.toml").read_text()
    guide = (ROOT / "docs/writing-a-method.md").read_text()
    declared = ['review = "debate_review:REVIEW"', 'quorum = "debate_review:quorum"']
    for line in declared:
        assert line in pyproject and line in guide


def test_the_retry_defaults_the_docs_state_are_the_codes():
    from debategraph.models.resolve import DEFAULT_TIMEOUT_S
    from debategraph.nodes.retry import DEFAULT_ATTEMPTS, DEFAULT_BACKOFF_S

    words = {6: "six"}
    evaluation = (ROOT / "docs" / "evaluation.md").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"RetryPolicy` ({DEFAULT_ATTEMPTS} attempts by\ndefault" in evaluation
    assert f"waits of {DEFAULT_BACKOFF_S:g}, 2, 4" in evaluation
    assert f"default {DEFAULT_TIMEOUT_S:g} s for the whole request" in evaluation
    assert f"{words[DEFAULT_ATTEMPTS]} attempts by default (`--max-attempts`)" in readme


def test_the_give_up_bound_the_docs_state_is_the_codes():
    from debategraph.models.resolve import DEFAULT_TIMEOUT_S
    from debategraph.nodes.patience import GIVE_UP_S

    def flat(name: str) -> str:
        return " ".join((ROOT / name).read_text(encoding="utf-8").split())

    evaluation, readme = flat("docs/evaluation.md"), flat("README.md")
    assert f"gives up {GIVE_UP_S:g} s after its first attempt" in evaluation
    assert f"reported after {GIVE_UP_S:g} s rather than after six {DEFAULT_TIMEOUT_S:g} s" in (
        evaluation
    )
    assert f"each of at most {DEFAULT_TIMEOUT_S:g} s (`--timeout`)" in readme
    assert f"gives up {GIVE_UP_S:g} s after its first attempt" in readme
    assert GIVE_UP_S < 300  # "a hung server is reported within 5 minutes"


def test_the_refused_connection_bounds_the_docs_state_are_the_codes():
    from debategraph.eval.run.breaker import DOWN_STREAK
    from debategraph.policies.retry import REFUSED_ATTEMPTS

    def flat(name: str) -> str:
        return " ".join((ROOT / name).read_text(encoding="utf-8").split())

    evaluation, readme = flat("docs/evaluation.md"), flat("README.md")
    for text in (evaluation, readme):
        assert f"tried {REFUSED_ATTEMPTS} times at most" in text
        assert f"{DOWN_STREAK} debates in a row" in text
    assert f"error: stopped: {DOWN_STREAK} debates in a row could not connect to" in evaluation


def test_every_option_of_a_method_is_in_its_card():
    import dataclasses

    import debategraph as dg

    for method in dg.list_methods():
        if not (method.card and method.card.startswith("docs/")):
            continue
        card = (ROOT / method.card).read_text(encoding="utf-8")
        for option in dataclasses.fields(method.options):
            assert re.search(rf"`{option.name}[`=]", card), (method.name, option.name)
