import json

from typer.testing import CliRunner

from debategraph.cli import app

ARITH = "What is the result of 3+4*5+6-7*2?"
runner = CliRunner()


def test_run_json_contract():
    out = runner.invoke(
        app, ["run", "--method", "du", "--agents", "3", "--rounds", "1", "--json", ARITH]
    )
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    assert d["method"] == "du" and d["rounds"] == 1 and len(d["agents"]) == 3
    assert len(d["turns"]) == 6
    assert d["usage"]["calls"] == 6


def test_run_transcript_shows_reads_and_decision():
    out = runner.invoke(app, ["run", "--agents", "2", "--rounds", "1", ARITH])
    assert out.exit_code == 0
    assert "round 1" in out.stdout and "answer:" in out.stdout and "NComm" in out.stdout


def test_bad_input_exits_nonzero_with_message():
    for args, message in [
        (["run", "--method", "nope", ARITH], "unknown method"),
        (["run", "--agents", "0", ARITH], "--agents must be 1 to 10000, got 0"),
        (["run", "--rounds", "-2", ARITH], "--rounds must be 0 to 10000, got -2"),
        (["run", ""], "question is empty"),
        (["run", "--model", "openai:gpt-4o-mini", ARITH], "OPENAI_API_KEY"),
        (["run", "--model", "nosuch:thing", ARITH], "unknown model provider"),
    ]:
        out = runner.invoke(app, args)
        assert out.exit_code == 2, args
        assert message in " ".join(out.stderr.split()), (args, out.stderr)


def test_simulated_debaters_warn_when_they_do_not_know_the_question():
    out = runner.invoke(app, ["run", "--agents", "2", "--rounds", "0", "What is 7 squared?"])
    assert out.exit_code == 0 and "simulated debaters know the answers" in out.stderr
    out = runner.invoke(app, ["run", "--agents", "2", "--rounds", "0", ARITH])
    assert "simulated debaters" not in out.stderr


def test_transcript_keeps_brackets_and_shows_text_on_request():
    question = "What is the result of 3+4*5+6-7*2? [red]not markup[/red]"
    out = runner.invoke(app, ["run", "--agents", "2", "--rounds", "0", "--show-text", question])
    assert out.exit_code == 0, out.output
    assert "[red]not markup[/red]" in out.stdout
    assert "\\boxed{15}" in out.stdout  # the responses themselves


def test_cot_with_several_agents_warns():
    out = runner.invoke(app, ["run", "--method", "cot", "--agents", "2", ARITH])
    assert out.exit_code == 0 and "is a 2-agent vote" in " ".join(out.stderr.split())


def test_langgraphs_warning_about_cancelled_calls_stays_off_the_terminal():
    """A run stopped with calls queued (server gone, breaker, Ctrl-C) leaves LangGraph's
    coroutines unawaited; the command line keeps Python's warning about them off stderr."""
    import subprocess
    import sys

    code = (
        "import gc, sys\n"
        "from debategraph.policies.terminal import quiet_unawaited_tasks\n"
        "if sys.argv[1] == 'quiet': quiet_unawaited_tasks()\n"
        "async def arun_with_retry(): pass\n"
        "call = arun_with_retry(); del call; gc.collect()\n"
        "async def other(): pass\n"
        "call = other(); del call; gc.collect()\n"
    )
    heard = {}
    for mode in ("quiet", "loud"):
        done = subprocess.run(
            [sys.executable, "-c", code, mode], capture_output=True, text=True, timeout=60
        )
        heard[mode] = done.stderr
    assert "'arun_with_retry' was never awaited" in heard["loud"]
    assert "arun_with_retry" not in heard["quiet"]
    assert "coroutine 'other' was never awaited" in heard["quiet"]  # only LangGraph's is kept off
