"""Settings mean the same on every front end, and the small things users hit (issue 32).

The command line runs as a subprocess (``python -m debategraph``), Studio through the
compiled graphs of ``graphs/studio.py``.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage

import debategraph as dg
from debategraph.graphs.studio import graph
from debategraph.models.names import key_variable, provider_of, unknown_name
from debategraph.models.token_field import sends_classic_field, with_token_limit

from .openai_server import serve

ROOT = Path(__file__).parents[1]
ARITH = "What is the result of 3+4*5+6-7*2?"


def cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``debategraph ARGS`` in a fresh process; no provider key unless given."""
    environ = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    return subprocess.run(
        [sys.executable, "-m", "debategraph", *args],
        capture_output=True,
        text=True,
        env={**environ, **env},
        timeout=120,
    )


def error_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, done.stderr
    return lines[0]


# --rounds and the methods that never debate


@pytest.mark.slow
def test_the_command_line_refuses_rounds_for_a_method_that_does_not_debate():
    done = cli("run", "--method", "sc", "--rounds", "1", "--json", ARITH)
    assert done.returncode == 2 and done.stdout == ""
    line = error_line(done)
    assert "sc does not debate" in line and "rounds=1 would turn it into a debate" in line
    kept = cli("run", "--method", "sc", "--rounds", "0", "--json", ARITH)
    assert kept.returncode == 0, kept.stderr
    result = json.loads(kept.stdout)
    assert (result["usage"]["calls"], result["ncomm"], result["rounds"]) == (5, 0, 0)


def test_python_and_studio_refuse_the_same_rounds_before_any_call():
    for method in ("cot", "sc", "mav"):
        with pytest.raises(dg.DebateConfigError, match=f"^{method} does not debate"):
            dg.run(ARITH, method=method, rounds=1)
        with pytest.raises(dg.DebateConfigError, match=f"^{method} does not debate"):
            graph(method).invoke({"question": ARITH}, context={"rounds": 2})
    voted = dg.run(ARITH, method="mav", rounds=0)
    assert (voted.usage["calls"], voted.ncomm, voted.rounds) == (3, 0, 0)
    studio = graph("mav").invoke({"question": ARITH}, context={"rounds": 0})
    assert len(studio["turns"]) == 3 and studio["round"] == 0


@pytest.mark.slow
def test_an_evaluations_shared_rounds_still_skip_the_baselines(tmp_path):
    out = tmp_path / "out"
    done = cli("eval", "--dataset", "arithmetic", "--limit", "1", "--method", "sc",
               "--method", "du", "--agents", "2", "--rounds", "1", "--out", str(out),
               "--quiet")  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    shape = {r["method"]: (r["calls"], r["rounds"], r["ncomm"]) for r in rows}
    assert shape == {"sc": (2, 0, 0), "du": (4, 1, 2)}
    assert "warning" not in done.stderr
    alone = cli("eval", "--dataset", "arithmetic", "--limit", "1", "--method", "sc",
                "--rounds", "1", "--out", str(tmp_path / "alone"), "--quiet")  # fmt: skip
    assert alone.returncode == 0, alone.stderr
    assert "warning: --rounds 1 reaches none of these methods (sc): they never debate" in " ".join(
        alone.stderr.split()
    )


def test_a_sweep_arm_that_gives_a_baseline_rounds_is_refused_by_name(tmp_path):
    from debategraph.eval.run.sweep import SweepError, load_sweep

    sweep = tmp_path / "sweep.toml"
    sweep.write_text('dataset = "arithmetic"\n[settings]\nrounds = 2\n'
                     '[arms.mav]\nmethod = "mav"\n'
                     '[arms.mav-debates]\nmethod = "mav"\nrounds = 1\n')  # fmt: skip
    with pytest.raises(SweepError, match=r"arms\.mav-debates\.rounds: mav does not debate"):
        load_sweep(sweep)
    sweep.write_text('dataset = "arithmetic"\n[settings]\nrounds = 2\n'
                     '[arms.mav]\nmethod = "mav"\n'
                     '[arms.mav-0]\nmethod = "mav"\nrounds = 0\n')  # fmt: skip
    assert [a.settings.get("rounds") for a in load_sweep(sweep).arms] == [None, 0]


# Model names without a provider prefix


@pytest.mark.slow
def test_a_misspelt_bare_model_name_gets_the_provider_model_advice():
    done = cli("run", "--model", "gpt-4o-mni", ARITH)
    line = error_line(done)
    assert done.returncode == 2
    assert "unknown model 'gpt-4o-mni' (did you mean 'gpt-4o-mini'?)" in line
    assert "'provider:model'" in line and "--base-url" in line
    assert "API_KEY" not in line
    keyed = cli("run", "--model", "gpt-4o-mni", ARITH, OPENAI_API_KEY="sk-never-sent")
    assert keyed.returncode == 2 and "unknown model 'gpt-4o-mni'" in error_line(keyed)
    known = cli("run", "--model", "gpt-4o-mini", ARITH)
    assert "set OPENAI_API_KEY in the environment" in error_line(known)


def test_bare_names_resolve_to_their_provider_and_its_key_variable():
    assert provider_of("gpt-4o-mini") == provider_of("openai:gpt-4o-mini") == "openai"
    assert provider_of("claude-3-5-haiku-latest") == "anthropic"
    assert provider_of("ollama:qwen2.5:7b") == "ollama"
    assert provider_of("smollm2") is None and provider_of("qwen2.5:7b") is None
    assert unknown_name("gpt-4o-mini") is None
    assert unknown_name("openai:gpt-4o-mni") is None  # a prefix says: send it as written
    assert unknown_name("claude-3-5-haiku-latest") is None
    assert unknown_name("smollm2") == (
        "unknown model provider in 'smollm2': write it as 'provider:model' (e.g. "
        "'openai:gpt-4o-mini'), or pass --base-url for an OpenAI-compatible server"
    )
    assert key_variable("openai") == "OPENAI_API_KEY"
    assert key_variable("google_genai") == "GOOGLE_API_KEY"
    assert key_variable("mistralai") == "MISTRAL_API_KEY"


def test_a_bare_name_is_free_at_a_base_url(loopback, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-key")
    with serve(seed=3) as server:
        result = dg.run(ARITH, method="cot", models="gpt-4o-mni", base_url=server.base_url)
    assert result.answer is not None and server.requests[-1].body["model"] == "gpt-4o-mni"


# max_tokens on chat model objects


def test_a_chat_openai_object_sends_max_tokens_to_a_server_that_is_not_openai(loopback):
    from langchain_openai import ChatOpenAI

    with serve(seed=3) as server:

        def model(**settings: object) -> ChatOpenAI:
            return ChatOpenAI(model="sim-0", base_url=server.base_url, api_key="sk-test",
                              max_retries=0, **settings)  # fmt: skip

        own = model(max_tokens=15, extra_body={"x_flag": 1})

        async def debates() -> list[dict[str, object]]:
            bodies = []
            for target, settings in ((model(), {"max_tokens": 20}), (own, {}),
                                     (own, {"max_tokens": 25})):  # fmt: skip
                await dg.arun(ARITH, method="cot", models=target, **settings)
                bodies.append(server.requests[-1].body)
            return bodies

        bodies = asyncio.run(debates())
    assert [b.get("max_tokens") for b in bodies] == [20, 15, 25]
    assert not any("max_completion_tokens" in b for b in bodies)
    assert bodies[1]["x_flag"] == bodies[2]["x_flag"] == 1  # the object's own extra body
    assert own.max_tokens == 15 and own.extra_body == {"x_flag": 1}  # the user's object as is


def test_openais_own_api_keeps_its_current_field():
    from langchain_openai import ChatOpenAI

    openai = ChatOpenAI(model="gpt-4o-mini", api_key="sk-never-sent")
    assert not sends_classic_field(openai)
    model, kwargs = with_token_limit(openai, {"max_tokens": 20})
    assert model is openai and kwargs == {"max_tokens": 20}
    payload = model.bind(**kwargs)._get_request_payload([HumanMessage("hi")], **kwargs)
    assert payload["max_completion_tokens"] == 20 and "extra_body" not in payload
    elsewhere = ChatOpenAI(model="m", base_url="http://127.0.0.1:9/v1", api_key="sk-x")
    assert sends_classic_field(elsewhere)
    assert not sends_classic_field(ChatOpenAI(model="m", base_url="https://api.openai.com/v1",
                                              api_key="sk-x"))  # fmt: skip
    assert not sends_classic_field(dg.SimulatedDebater())


# Small things


@pytest.mark.slow
def test_the_command_line_prints_its_version():
    done = cli("--version")
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert done.returncode == 0 and done.stdout == f"debategraph {dg.__version__}\n"
    assert dg.__version__ == declared


def test_studio_refuses_a_misspelt_input_key_by_name():
    for method in ("du", "sc"):
        with pytest.raises(dg.DebateConfigError) as refused:
            graph(method).invoke({"questions": ARITH})
        assert str(refused.value) == (
            "unknown input key(s) 'questions' (did you mean 'question'?); a debate's input "
            "takes question, task, choices, reference, item_id"
        )
    with pytest.raises(dg.DebateConfigError, match="'choice' \\(did you mean 'choices'\\?\\)"):
        asyncio.run(graph("du").ainvoke({"question": ARITH, "choice": ["1", "2"]}))
    assert graph("mav").invoke({"question": ARITH, "task": "number"})["decision"]


def test_a_verdict_quoted_in_a_revision_is_not_taken_for_a_request():
    debater = dg.SimulatedDebater()
    revise = (
        "Your previous answer:\n```\nSo \\boxed{15}\n```\n\nA review of your answer:\n"
        "```\nI checked it. <label>YES</label>\n```\n\nKeep it or correct it.\n\n"
        f"Question: {ARITH}\n\nPut your final answer as \\boxed{{answer}}."
    )
    assert "\\boxed{" in debater.invoke(revise).text
    review = f"Question: {ARITH}\n\nEnd with <label>YES</label> or <label>NO</label>.\n```\n15\n```"
    assert "<label>" in debater.invoke(review).text


def test_the_stored_debate_the_docs_show_is_in_their_example_run():
    import re
    import shlex

    from debategraph.eval.datasets import load_dataset

    doc = (ROOT / "docs/evaluation.md").read_text(encoding="utf-8")
    example = shlex.split(re.search(r"^debategraph eval --method du[^\n]*", doc, re.M)[0])
    dataset = example[example.index("--dataset") + 1]
    limit = int(example[example.index("--limit") + 1])
    out = example[example.index("--out") + 1]
    section = doc.split("### Reading a stored debate", 1)[1].split("\n## ", 1)[0]
    shown = set(re.findall(rf"debategraph show {re.escape(out)} (\S+)", section))
    assert len(shown) == 1
    assert shown <= {item.id for item in load_dataset(dataset, limit=limit)}


def test_the_inspect_example_passes_the_role_its_model_roles_bind():
    doc = (ROOT / "docs/evaluation.md").read_text(encoding="utf-8")
    inspect = doc.split("## Inspect", 1)[1].split("\n## ", 1)[0]
    assert 'model_roles={"debaters"' in inspect and 'role="debaters"' in inspect
