"""The fault map: each fault of issues 30 and 40, the tests that hold it, and whether they pass.

Every fault is named by patterns over the test suite's node ids (a regular expression for
the file, one for the test's name, parameters left out), not by exact names, so that the
map holds tests written on other branches; a fault whose patterns select no test is
reported as ``missing``, not as a failure. The suite is collected once
(``pytest --collect-only``), the selected tests run in one pytest process, and their
outcomes are read from its JUnit XML report.

Usage: PYTHONPATH=src python bench/fault_map.py [--list] [--out FILE]
       (or python bench/faults.py --tests ...)
"""

from __future__ import annotations

import argparse
import platform
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ANY_FILE = r"."


@dataclass(frozen=True)
class Fault:
    """One fault of the issue and the tests that show it is handled.

    Attributes:
        key: Its number in the issue's list (``import`` for Ctrl-C during import; ``40.N``
            and ``40.6-what`` for issue 40's).
        what: What must hold, in a few words.
        patterns: ``(file regex, test-name regex)`` pairs; a test matching any pair counts.
    """

    key: str
    what: str
    patterns: tuple[tuple[str, str], ...]


FAULTS = (
    Fault(
        "1",
        "a chat model object works on every call (each event loop)",
        (
            (r"test_model_objects\.py$", r"."),
            (ANY_FILE, r"object\w*(every_call|loop|twice|second|again)"),
            (ANY_FILE, r"(every_call|loop|twice|second_run|again)\w*model_object"),
        ),
    ),
    Fault(
        "2",
        "tokens of Ctrl-C-interrupted debates are accounted",
        (
            (r"test_interrupted_spend\.py$", r"."),
            (ANY_FILE, r"(ctrl_c|interrupt)\w*(token|spend|account|usage)"),
            (ANY_FILE, r"(token|spend|account|usage)\w*(ctrl_c|interrupt)"),
        ),
    ),
    Fault(
        "3",
        "a streamed reply without finish reason is retried",
        (
            (r"test_cut_replies\.py$", r"."),
            (ANY_FILE, r"(no|without|missing|lacks?)_finish|stream\w*finish|finish\w*stream"),
        ),
    ),
    Fault(
        "4",
        '`--dataset ""` is refused before any call',
        (
            (r"test_dataset_errors\.py$", r"empty_dataset|refused_dataset"),
            (ANY_FILE, r"(empty|blank)\w*dataset|dataset\w*(empty|blank)"),
        ),
    ),
    Fault(
        "5",
        "secrets in HTTP_PROXY and auth headers are redacted",
        (
            (r"test_secret_sources\.py$", r"."),
            (ANY_FILE, r"(proxy|header)\w*(secret|redact|password)"),
            (ANY_FILE, r"(secret|redact|password)\w*(proxy|header)"),
        ),
    ),
    Fault(
        "6",
        "a hung server is bounded and visible; a throttled wait is capped",
        (
            (r"test_giving_up\.py$", r"."),
            (ANY_FILE, r"(^|_)(hung|hangs|hanging|stalled)(_|$)"),
            (ANY_FILE, r"throttl|waiting_for|(wait|waits)\w*(cap|capped|bounded)"),
        ),
    ),
    Fault(
        "7",
        "a damaged, full or read-only cache is one line",
        (
            (r"test_cache_faults\.py$", r"."),
            (
                ANY_FILE,
                r"cache\w*(damaged|corrupt|broken|full|read_only|readonly|unwritable|enospc)",
            ),
            (ANY_FILE, r"(damaged|corrupt|broken|full|read_only|readonly|unwritable)\w*cache"),
        ),
    ),
    Fault(
        "8",
        "`show` on hostile rows answers, cutting long fields",
        (
            (r"test_show_hostile\.py$", r"."),
            (ANY_FILE, r"show\w*(hostile|huge|long|large|big|cut|trunc)|(hostile|huge)\w*show"),
        ),
    ),
    Fault(
        "9",
        '`--ids ""` is refused before `--out` is created',
        (
            (r"test_dataset_errors\.py$", r"id_list|without_ids"),
            (ANY_FILE, r"(empty|blank)\w*ids|(^|_)ids_\w*(empty|blank|comma)"),
        ),
    ),
    Fault(
        "10",
        "Ray: a killed driver's cluster ends, no Ray noise, Basic-credentials advice",
        (
            (
                r"(^|/)test_ray\.py$",
                r"killed_driver|gone_after|joined_with|basic_credentials|cannot_reach|two_workers",
            ),
            (r"(^|/)test_reaper\.py$", r"."),
        ),
    ),
    Fault(
        "11",
        "a malformed plan call raises PlanError",
        (
            (r"test_plan_errors\.py$", r"."),
            (ANY_FILE, r"plan_?error|malformed\w*(call|plan)|(call|plan)\w*malformed"),
        ),
    ),
    Fault(
        "12",
        "dataset errors are one line naming the file",
        (
            (
                r"test_dataset_errors\.py$",
                r"latin|utf|gzip|byte|name_the_file|naming_the_file|is_named|json_error",
            ),
            (ANY_FILE, r"dataset\w*(name|names|naming)_(the_|its_)?file"),
        ),
    ),
    Fault(
        "40.1",
        "no secret (key, URL or proxy password, auth header) in any file, the call cache included",
        (
            (r"test_secrets\.py$", r"any_file|cache"),
            (ANY_FILE, r"secret\w*(cache|any_file)"),
        ),
    ),
    Fault(
        "40.5",
        "every numeric option has a range; refusals name the flag; empty names refused",
        (
            (r"test_option_ranges\.py$", r"."),
            (ANY_FILE, r"out_of_range\w*flag|empty_\w*name\w*flag"),
        ),
    ),
    Fault(
        "40.6-404",
        "a wrong model name (HTTP 404) stops the run, naming the model",
        ((ANY_FILE, r"wrong_model_name"),),
    ),
    Fault(
        "40.6-warning",
        "no Python warning (coroutine never awaited) when the server dies mid-eval",
        ((ANY_FILE, r"never_awaited|cancelled_calls_stays_off|goes_away_mid_run"),),
    ),
    Fault(
        "40.6-cut",
        "a reply cut off mid-body is named so, not 'could not reach'",
        ((ANY_FILE, r"cut_off_mid"),),
    ),
    Fault(
        "40.6-readonly",
        "a read-only cache says read-only",
        ((r"test_cache_faults\.py$", r"fault_messages|read_only"),),
    ),
    Fault(
        "40.6-dataset",
        "dataset errors are one line",
        ((ANY_FILE, r"dataset_errors\w*one_line|by_the_dozen"),),
    ),
    Fault(
        "40.6-429",
        "six HTTP 429s in a row do not fail a call",
        ((ANY_FILE, r"429s_in_a_row"),),
    ),
    Fault(
        "40.6-ctrl-c",
        "Ctrl-C from the package's first line meets the guard",
        ((ANY_FILE, r"guard_comes_before"),),
    ),
    Fault(
        "import",
        "Ctrl-C during import: one `interrupted` line, exit 130",
        (
            (r"test_interrupt\.py$", r"import"),
            (ANY_FILE, r"(ctrl_c|interrupt|sigint)\w*import|import\w*(ctrl_c|interrupt|sigint)"),
        ),
    ),
    Fault(
        "40.3 kill",
        "SIGKILL storm, local and Ray: rows + ledger = the server's tokens (notes written ahead)",
        ((r"test_(ray_)?spend_notes\.py$", r"sigkill|killed|notes_count|retried_entry"),),
    ),
    Fault(
        "40.3 disk",
        "a full cache disk leaves every token on the bill",
        ((r"test_spend_notes\.py$", r"full_cache_disk"),),
    ),
    Fault(
        "40.3 siblings",
        "replies to a failing debate's other calls are billed",
        ((r"test_spend_notes\.py$", r"failing_debate"),),
    ),
    Fault(
        "40.3 ctrl-c",
        "Ctrl-C: rows + ledger = the server's; `interrupted:` gives the cut-off calls' estimate",
        (
            (r"test_interrupted_spend\.py$", r"."),
            (r"test_spend_notes\.py$", r"in_flight"),
        ),
    ),
    Fault(
        "40.5 guard",
        "--max-usd / --max-tokens-total stop within one window and resume; bad limits refused",
        ((r"test_spend_guard\.py$", r"."),),
    ),
)


def collect() -> list[str]:
    """Every test's node id, as pytest collects the suite."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if done.returncode not in (0, 5):  # 5: nothing collected
        print(f"fault map: pytest could not collect every test:\n{done.stdout[-2000:]}",
              file=sys.stderr)  # fmt: skip
    return [line.strip() for line in done.stdout.splitlines() if "::" in line]


def matches(fault: Fault, node: str) -> bool:
    """Whether the test ``node`` (a pytest node id) holds ``fault``."""
    path, _, rest = node.partition("::")
    name = rest.split("::")[-1].split("[")[0]
    return any(re.search(f, path) and re.search(n, name) for f, n in fault.patterns)


def select(nodes: list[str]) -> dict[str, list[str]]:
    """Each fault's tests (by key)."""
    return {fault.key: [n for n in nodes if matches(fault, n)] for fault in FAULTS}


def junit_key(node: str) -> tuple[str, str]:
    """The ``(classname, name)`` that pytest's JUnit report gives the test ``node``."""
    parts = node.split("::")
    module = parts[0].removesuffix(".py").replace("/", ".")
    return ".".join([module, *parts[1:-1]]), parts[-1]


def run(nodes: list[str]) -> dict[str, str]:
    """Run ``nodes`` in one pytest process: node id -> passed, failed, skipped (or absent)."""
    if not nodes:
        return {}
    with tempfile.TemporaryDirectory(prefix="faultmap-") as tmp:
        report = Path(tmp, "junit.xml")
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             f"--junitxml={report}", *nodes],
            cwd=ROOT,
            capture_output=True,
        )  # fmt: skip
        if not report.exists():
            return {}
        outcome = {}
        for case in ElementTree.parse(report).iter("testcase"):
            tags = {child.tag for child in case}
            state = (
                "failed"
                if tags & {"failure", "error"}
                else "skipped"
                if "skipped" in tags
                else "passed"
            )
            outcome[(case.get("classname", ""), case.get("name", ""))] = state
    return {node: outcome.get(junit_key(node), "not run") for node in nodes}


def table(selected: dict[str, list[str]], outcomes: dict[str, str] | None) -> str:
    """The map as Markdown: per fault its tests and, when run, their outcomes."""
    lines = ["| # | must hold | tests found | passed | failed | skipped | status |"]
    lines.append("|---|---|---:|---:|---:|---:|---|")
    for fault in FAULTS:
        nodes = selected[fault.key]
        if outcomes is None:
            counts: Counter[str] = Counter()
            status = "missing" if not nodes else "not run"
        else:
            counts = Counter(outcomes.get(n, "not run") for n in nodes)
            bad = counts["failed"] + counts["not run"]
            status = "missing" if not nodes else "FAIL" if bad else "pass"
        lines.append(
            f"| {fault.key} | {fault.what} | {len(nodes)} | {counts['passed']} | "
            f"{counts['failed'] + counts['not run']} | {counts['skipped']} | {status} |"
        )
    return "\n".join(lines)


def details(selected: dict[str, list[str]], outcomes: dict[str, str] | None) -> str:
    """Each fault's patterns and the tests they selected."""
    out = []
    for fault in FAULTS:
        patterns = "; ".join(f"`{f}` :: `{n}`" for f, n in fault.patterns)
        out.append(f"- {fault.key}: {patterns}")
        for node in selected[fault.key]:
            state = "" if outcomes is None else f" ({outcomes.get(node, 'not run')})"
            out.append(f"  - `{node}`{state}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--list", action="store_true", help="select the tests, do not run them")
    parser.add_argument("--out", type=Path, help="also write the Markdown here")
    args = parser.parse_args(argv)
    selected = select(collect())
    wanted = sorted({n for nodes in selected.values() for n in nodes})
    outcomes = None if args.list else run(wanted)
    command = " ".join(["python bench/faults.py --tests", *(argv or sys.argv[1:])])
    head = (
        f"# Fault map (issue 30)\n\nCommand: `{command}` · {date.today()} · Python "
        f"{platform.python_version()} · {len(wanted)} tests selected.\n"
    )
    text = f"{head}\n{table(selected, outcomes)}\n\n{details(selected, outcomes)}\n"
    if args.out:
        args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
