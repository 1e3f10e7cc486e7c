"""A results directory of any size, with rows as ``eval`` writes them (turns and texts).

A small real evaluation (simulated debaters, bundled GSM8K items, several arms) gives the
template rows; each synthetic row is a template row of its arm under a new item id (and seed),
so rows carry the real fields, turns and reply texts. ``run.json`` names every item and arm,
as ``eval`` writes it.

Usage (as a module): ``make_results(folder, rows=300_000)``.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from debategraph.eval.datasets import load_dataset
from debategraph.eval.run.runner import Arm, evaluate

METHODS = ("cot", "du", "groupdebate", "madm2-s", "freemad-n", "svr")
"""The arms of a synthetic run (mean row about 10 KiB with texts)."""

_KEY = re.compile(rb'^\{"method":("(?:[^"\\]|\\.)*"),"id":("(?:[^"\\]|\\.)*"),')


def _templates(limit: int) -> tuple[dict[str, list[bytes]], dict[str, object]]:
    """Per arm, the tail of each row after its key; and the run's ``run.json``."""
    items = load_dataset("gsm8k", limit=limit, seed=0)
    arms = [Arm(m, m, {}) for m in METHODS]
    with tempfile.TemporaryDirectory() as tmp:
        evaluate(items, arms, tmp, dataset="gsm8k", concurrency=16)
        lines = (Path(tmp) / "results.jsonl").read_bytes().splitlines()
        manifest = json.loads((Path(tmp) / "run.json").read_text())
    tails: dict[str, list[bytes]] = {}
    for line in lines:
        match = _KEY.match(line)
        assert match is not None, line[:80]
        tails.setdefault(json.loads(match.group(1)), []).append(line[match.end() :])
    return tails, manifest


def make_results(folder: Path, rows: int, *, seeds: int = 1, limit: int = 20) -> list[str]:
    """Write ``rows`` rows (arms x items x seeds) into ``folder``; returns the item ids."""
    tails, manifest = _templates(limit)
    per_item = len(METHODS) * seeds
    count = max(1, rows // per_item)
    ids = [f"gsm8k-synthetic-{k:06d}" for k in range(count)]
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "results.jsonl").open("wb") as out:
        for method in METHODS:
            head = b'{"method":' + json.dumps(method).encode() + b',"id":'
            own = tails[method]
            for seed in range(seeds):
                seeded = b',"seed":%d,' % seed if seeds > 1 else b","
                for k, item in enumerate(ids):
                    out.write(head + json.dumps(item).encode() + seeded + own[k % len(own)])
                    out.write(b"\n")
    settings = dict(manifest["settings"])  # type: ignore[call-overload]
    settings["items"] = count
    if seeds > 1:
        settings["seeds"] = list(range(seeds))
    document = {**manifest, "settings": settings, "item_ids": ids}  # type: ignore[dict-item]
    (folder / "run.json").write_text(json.dumps(document, indent=2) + "\n")
    return ids
