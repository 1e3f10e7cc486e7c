"""Text from a model or a server never reaches a terminal with its control sequences intact."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console
from typer.testing import CliRunner

import debategraph as dg
from debategraph.cli import app, print_transcript
from debategraph.cli_options import fail
from debategraph.policies.terminal import visible
from debategraph.testing import ScriptedChatModel

CLEAR, TITLE, BIDI = "\x1b[2J", "\x1b]0;pwned\x07", "\u202e"


def test_visible_escapes_controls_and_keeps_lines():
    assert visible(f"a{CLEAR}b{TITLE}\r\nc\td{BIDI}e") == (
        "a\\x1b[2Jb\\x1b]0;pwned\\x07\\r\nc\td\\u202ee"
    )
    assert visible("plain text, 15.") == "plain text, 15."


def test_the_transcript_shows_escape_sequences_visibly():
    reply = f"{CLEAR}Working it out.{TITLE}\nAnswer: red{BIDI} car"
    model = ScriptedChatModel(replies=[reply])
    result = dg.run("What colour?", method="cot", task="text", models=model)
    data = json.loads(json.dumps(result.to_dict(include_text=True)))
    assert data["turns"][0]["text"] == reply  # JSON keeps the exact text
    out = io.StringIO()
    print_transcript(result, Console(file=out, width=200, color_system=None), show_text=True)
    printed = out.getvalue()
    assert "\x1b" not in printed and BIDI not in printed
    assert "\\x1b[2J" in printed and "\\u202e" in printed  # the text and the answer column


def test_error_lines_show_escape_sequences_visibly(capsys):
    import typer

    with pytest.raises(typer.Exit):
        fail(f"the server said {CLEAR}no")
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b[2J" in err


def test_the_results_table_prints_labels_visibly(tmp_path):
    sweep = tmp_path / "s.toml"
    sweep.write_text(
        f'dataset = "arithmetic"\nlimit = 1\nout = "{tmp_path / "o"}"\n'
        '[arms."du\\u001b[2J"]\nmethod = "cot"\n'
    )
    out = CliRunner().invoke(app, ["eval", "--config", str(sweep), "--quiet"])
    assert out.exit_code == 0, out.output
    assert "\x1b" not in out.stdout and "du\\x1b[2J" in out.stdout
