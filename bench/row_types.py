"""Which type should a results row be: decoding cost of the candidates at 300,000 rows.

Runs a small simulated ``eval`` (du, three agents, two rounds) for a template row, pads
every turn's text so a row is about ``--row-kib`` KiB as a real model's rows are, and writes
``--rows`` clones (ids, answers, correctness and seeds varied) twice: as ``eval`` writes them
(turns and texts) and without turns. Each candidate then reads each file in a fresh process,
one line at a time, and sums the figures a report needs (correct, tokens, calls), keeping no
row; its CPU seconds (user + system, after the imports) and peak RSS (``ru_maxrss``) are
those of that child.

Candidates: ``json`` into dicts; ``json`` into dataclasses (a row dataclass holding turn
dataclasses, built from the dict); ``orjson`` into a TypedDict (a dict at run time);
pydantic v2 ``model_validate_json`` into models; msgspec into a ``Struct`` of every field;
msgspec into a ``Struct`` that declares only the summary fields (the others, turns among
them, are skipped by the decoder and never built). ``--keep`` also holds every decoded row
of the file without turns, to show the type's own memory per row.

Usage: python bench/row_types.py [--rows 300000] [--row-kib 10] [--keep]
       [--out bench/RESULTS-row-types.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

CANDIDATES = (
    "json-dict",
    "json-dataclass",
    "orjson-typeddict",
    "pydantic",
    "msgspec",
    "msgspec-summary",
)

DECODE = r"""
import json, resource, sys
from dataclasses import dataclass, field, fields
from typing import Any, TypedDict
import msgspec, orjson, pydantic

kind, path, keep = sys.argv[1], sys.argv[2], sys.argv[3] == "keep"


@dataclass(slots=True)
class DTurn:
    id: str
    agent: str
    round: int
    kind: str
    answer: Any = None
    answer_source: str | None = None
    confidence: float | None = None
    reads: list[str] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    usage_estimated: bool = False
    latency_s: float = 0.0
    model: str = ""
    logprobs: Any = None
    text: str | None = None


@dataclass(slots=True)
class DRow:
    method: str
    id: str | int
    dataset: str = ""
    source: str = ""
    answer: Any = None
    reference: Any = None
    correct: bool = False
    abstained: bool = False
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    cached_calls: int = 0
    usage_by_source: dict[str, Any] = field(default_factory=dict)
    ncomm: int = 0
    rounds: int = 0
    agents: int = 0
    parse_failures: int = 0
    wall_s: float = 0.0
    round_answers: list[list[Any]] = field(default_factory=list)
    round_confidences: list[list[Any]] = field(default_factory=list)
    agent_models: list[str] = field(default_factory=list)
    tokens_by_kind: dict[str, Any] = field(default_factory=dict)
    task: str = "number"
    answer_sources: dict[str, int] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    question: str = ""
    choices: list[str] | None = None
    agent_names: list[str] = field(default_factory=list)
    cut_off: list[Any] = field(default_factory=list)
    adversaries: dict[str, Any] = field(default_factory=dict)
    decision: dict[str, Any] = field(default_factory=dict)
    turns: list[DTurn] | None = None
    method_state: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None


D_FIELDS = {f.name for f in fields(DRow)}
T_FIELDS = {f.name for f in fields(DTurn)}


def as_dataclass(d: dict[str, Any]) -> DRow:
    kept = {k: v for k, v in d.items() if k in D_FIELDS}
    if kept.get("turns") is not None:
        kept["turns"] = [
            DTurn(**{k: v for k, v in t.items() if k in T_FIELDS}) for t in kept["turns"]
        ]
    return DRow(**kept)


class TRow(TypedDict, total=False):
    method: str
    id: str | int
    correct: bool
    input_tokens: int
    output_tokens: int
    calls: int


class PTurn(pydantic.BaseModel):
    id: str
    agent: str
    round: int
    kind: str
    answer: Any = None
    answer_source: str | None = None
    confidence: float | None = None
    reads: list[str] = []
    input_tokens: int = 0
    output_tokens: int = 0
    usage_estimated: bool = False
    latency_s: float = 0.0
    model: str = ""
    logprobs: Any = None
    text: str | None = None


class PRow(pydantic.BaseModel):
    method: str
    id: str | int
    dataset: str = ""
    source: str = ""
    answer: Any = None
    reference: Any = None
    correct: bool = False
    abstained: bool = False
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    cached_calls: int = 0
    usage_by_source: dict[str, Any] = {}
    ncomm: int = 0
    rounds: int = 0
    agents: int = 0
    parse_failures: int = 0
    wall_s: float = 0.0
    round_answers: list[list[Any]] = []
    round_confidences: list[list[Any]] = []
    agent_models: list[str] = []
    tokens_by_kind: dict[str, Any] = {}
    task: str = "number"
    answer_sources: dict[str, int] = {}
    settings: dict[str, Any] = {}
    question: str = ""
    choices: list[str] | None = None
    agent_names: list[str] = []
    cut_off: list[Any] = []
    adversaries: dict[str, Any] = {}
    decision: dict[str, Any] = {}
    turns: list[PTurn] | None = None
    method_state: dict[str, Any] = {}
    seed: int | None = None


class MTurn(msgspec.Struct, gc=False):
    id: str
    agent: str
    round: int
    kind: str
    answer: Any = None
    answer_source: str | None = None
    confidence: float | None = None
    reads: list[str] = []
    input_tokens: int = 0
    output_tokens: int = 0
    usage_estimated: bool = False
    latency_s: float = 0.0
    model: str = ""
    logprobs: Any = None
    text: str | None = None


class MRow(msgspec.Struct):
    method: str
    id: str | int
    dataset: str = ""
    source: str = ""
    answer: Any = None
    reference: Any = None
    correct: bool = False
    abstained: bool = False
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    cached_calls: int = 0
    usage_by_source: dict[str, Any] = {}
    ncomm: int = 0
    rounds: int = 0
    agents: int = 0
    parse_failures: int = 0
    wall_s: float = 0.0
    round_answers: list[list[Any]] = []
    round_confidences: list[list[Any]] = []
    agent_models: list[str] = []
    tokens_by_kind: dict[str, Any] = {}
    task: str = "number"
    answer_sources: dict[str, int] = {}
    settings: dict[str, Any] = {}
    question: str = ""
    choices: list[str] | None = None
    agent_names: list[str] = []
    cut_off: list[Any] = []
    adversaries: dict[str, Any] = {}
    decision: dict[str, Any] = {}
    turns: list[MTurn] | None = None
    method_state: dict[str, Any] = {}
    seed: int | None = None


class MSummary(msgspec.Struct, gc=False):
    method: str
    id: str | int
    correct: bool = False
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    seed: int | None = None


def keys(r):
    return r["correct"], r["input_tokens"] + r["output_tokens"], r["calls"]


def attrs(r):
    return r.correct, r.input_tokens + r.output_tokens, r.calls


def decoder():
    if kind == "json-dict":
        return json.loads, keys
    if kind == "json-dataclass":
        return (lambda b: as_dataclass(json.loads(b))), attrs
    if kind == "orjson-typeddict":
        def typed(b: bytes) -> TRow:
            return orjson.loads(b)
        return typed, keys
    if kind == "pydantic":
        return PRow.model_validate_json, attrs
    if kind == "msgspec":
        return msgspec.json.Decoder(MRow).decode, attrs
    if kind == "msgspec-summary":
        return msgspec.json.Decoder(MSummary).decode, attrs
    raise SystemExit(f"unknown {kind}")


decode, figures = decoder()
before = resource.getrusage(resource.RUSAGE_SELF)
right = tokens = calls = rows = 0
held = []
with open(path, "rb") as f:
    for line in f:
        row = decode(line)
        ok, used, n = figures(row)
        right += ok
        tokens += used
        calls += n
        rows += 1
        if keep:
            held.append(row)
usage = resource.getrusage(resource.RUSAGE_SELF)
cpu = usage.ru_utime + usage.ru_stime - before.ru_utime - before.ru_stime
print(json.dumps({"rows": rows, "right": right, "cpu_s": cpu, "peak_mib": usage.ru_maxrss / 1024}))
"""


def template(row_kib: float) -> dict[str, object]:
    """One du row as ``eval`` writes it, its turn texts padded to about ``row_kib`` KiB."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        command = [sys.executable, "-m", "debategraph.cli", "eval", "--method", "du"]
        command += ["--dataset", "arithmetic", "--limit", "1", "--quiet", "--out", str(out)]
        subprocess.run(command, check=True, capture_output=True)
        row: dict[str, object] = json.loads((out / "results.jsonl").read_text().splitlines()[0])
    turns = row["turns"]
    assert isinstance(turns, list)
    size = len(json.dumps({**row, "turns": [{**t, "text": ""} for t in turns]}))
    pad = max(0, int((row_kib * 1024 - size) / len(turns)))
    words = "so the total is the sum of the parts, checked once more. "
    for turn in turns:
        turn["text"] = (str(turn.get("text") or "") + " " + words * (pad // len(words) + 1))[:pad]
    return row


def write_rows(row: dict[str, object], count: int, path: Path, *, turns: bool) -> int:
    """``count`` clones of ``row`` (ids, answers and seeds varied); returns the bytes written."""
    base = dict(row) if turns else {k: v for k, v in row.items() if k != "turns"}
    head, tail = json.dumps({**base, "id": "\x00"}).split('"\\u0000"')
    with path.open("w", encoding="utf-8") as out:
        for k in range(count):
            right = k % 3 != 0
            varied = head.replace('"correct": true', f'"correct": {"true" if right else "false"}')
            out.write(f'{varied}"item-{k // 5:06d}", "seed": {k % 5}{tail}\n')
    return path.stat().st_size


def measure(kind: str, path: Path, keep: bool) -> dict[str, float]:
    """One candidate's pass over ``path`` in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", DECODE, kind, str(path), "keep" if keep else "stream"],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(f"{kind} failed: {done.stderr[-2000:]}")
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--row-kib", type=float, default=10.0)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--only", default=",".join(CANDIDATES))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    row = template(args.row_kib)
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        files = {"turns and texts": Path(tmp) / "full.jsonl", "no turns": Path(tmp) / "lean.jsonl"}
        sizes = {
            name: write_rows(row, args.rows, path, turns=name == "turns and texts")
            for name, path in files.items()
        }
        for name, path in files.items():
            for kind in args.only.split(","):
                for keep in (False, True) if args.keep and name == "no turns" else (False,):
                    got = measure(kind, path, keep)
                    mode = "held" if keep else "streamed"
                    cpu, peak = got["cpu_s"], got["peak_mib"]
                    line = f"| {name} | {kind} | {mode} | {cpu:.1f} | {peak:.0f} |"
                    print(line, flush=True)
                    lines.append(line)
    load = os.getloadavg()
    header = [
        f"`python bench/row_types.py --rows {args.rows} --row-kib {args.row_kib:g}"
        + (" --keep" if args.keep else "")
        + f"` (Python {platform.python_version()}, {os.cpu_count()} CPU(s), shared; load average "
        f"after: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}). Files: "
        + ", ".join(f"{name} {size / 2**20:,.0f} MiB" for name, size in sizes.items())
        + ".",
        "",
        "| Rows | Type | Rows kept | CPU s | Peak RSS MiB |",
        "|---|---|---|---:|---:|",
    ]
    text = "\n".join(header + lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
