"""Every numeric option of every command has a declared range, refused at once by its flag."""

from __future__ import annotations

import inspect
import sys
import typing
from pathlib import Path
from typing import Any

import pytest
from typer.models import ArgumentInfo, OptionInfo

from debategraph import cli
from debategraph.state.setting import Bounds


def _options() -> list[tuple[str, str, Any, list[str]]]:
    """(command, flag, option's callback, positional arguments) of every numeric option."""
    found = []
    for info in cli.app.registered_commands:
        assert info.callback is not None
        command = info.name or info.callback.__name__
        params = inspect.signature(info.callback, eval_str=True).parameters.values()
        positional = []
        numeric = []
        for param in params:
            base, *extra = typing.get_args(param.annotation) or (param.annotation,)
            declared = next((x for x in extra if isinstance(x, OptionInfo | ArgumentInfo)), None)
            if isinstance(declared, ArgumentInfo):
                positional.append("x")
            kinds = set(typing.get_args(base)) or {base}
            if isinstance(declared, OptionInfo) and kinds & {int, float}:
                flag = next((d for d in declared.param_decls if d.startswith("--")), None)
                numeric.append((flag or "--" + param.name.replace("_", "-"), declared.callback))
        found += [(command, flag, check, positional) for flag, check in numeric]
    return found


OPTIONS = _options()


def _shown(value: float, bounds: Bounds) -> str:
    return str(int(value)) if bounds.whole else str(value)


def test_every_numeric_option_of_every_command_has_a_range_in_its_help() -> None:
    flags = {(command, flag) for command, flag, _, _ in OPTIONS}
    assert {("report", "--resamples"), ("report", "--bootstrap-seed"), ("eval", "--limit"),
            ("eval", "--concurrency"), ("run", "--rounds"), ("run", "--seed")} <= flags  # fmt: skip
    unbounded = [(c, f) for c, f, check, _ in OPTIONS if getattr(check, "bounds", None) is None]
    assert unbounded == []


CASES = [
    pytest.param(command, flag, _shown(value, check.bounds), positional, id=f"{command}{flag}{i}")
    for command, flag, check, positional in OPTIONS
    for i, value in enumerate(check.bounds.outside())
]


@pytest.mark.parametrize(("command", "flag", "value", "positional"), CASES)
def test_an_out_of_range_value_is_refused_by_its_flag_before_any_work(
    command: str,
    flag: str,
    value: str,
    positional: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["debategraph", command, f"{flag}={value}", *positional])
    with pytest.raises(SystemExit) as stop:
        cli.main()
    out, err = capsys.readouterr()
    assert stop.value.code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {flag} must be "), err
    assert lines[0].endswith(f", got {value}") or "got " in lines[0]
    assert out == "" and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("flag", ["--baseline", "--compare"])
def test_report_refuses_an_empty_arm_name_by_its_flag(
    flag: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["debategraph", "report", "results", flag, ""])
    with pytest.raises(SystemExit) as stop:
        cli.main()
    assert stop.value.code == 2
    assert capsys.readouterr().err.strip() == f"error: {flag} needs a name, got an empty one"
    assert list(tmp_path.iterdir()) == []


def test_bounds_describe_their_range_and_refuse_what_lies_outside() -> None:
    resamples = Bounds(1, 1_000_000)
    assert resamples.describe() == "1 to 1000000"
    refusal = "--resamples must be 1 to 1000000, got 1000000000"
    assert resamples.problem("--resamples", 10**9) == refusal
    assert resamples.problem("--resamples", 1) is None and resamples.problem("--x", None) is None
    top_p = Bounds(0, 1, above=True, whole=False)
    assert top_p.describe() == "above 0 and at most 1"
    assert top_p.problem("--top-p", 0.0) == "--top-p must be above 0 and at most 1, got 0.0"
    assert top_p.problem("--top-p", float("nan")) is not None
    assert top_p.problem("--top-p", 1) is None
    assert top_p.outside() == (0, 3)
    assert Bounds(-2, 2, whole=False).outside() == (-2.5, 5)
