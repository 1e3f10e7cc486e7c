"""Picture of ``inspect view`` on an exported run, for the README (docs/images/inspect-view.png).

Runs a small simulated evaluation (no network), exports it with ``debategraph export --to
inspect``, serves the logs with ``inspect view`` on a loopback port and photographs one
sample's transcript in headless Chromium, driven over the DevTools protocol (aiohttp comes
with inspect_ai). Needs Chromium (Debian: ``apt-get install -y chromium``).

    python scripts/inspect_screenshot.py [--out docs/images/inspect-view.png]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
]
WIDTH, HEIGHT = 1280, 900


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise SystemExit(f"nothing listens on 127.0.0.1:{port} after {seconds:g} s")


def make_logs(work: Path) -> tuple[Path, str]:
    """A 3-item, 3-agent, 2-round du run on GSM8K, exported to Inspect; its first item."""
    run, logs = work, work / "inspect"
    debategraph = [sys.executable, "-m", "debategraph"]
    subprocess.run(
        [*debategraph, "eval", "--method", "du", "--dataset", "gsm8k", "--limit", "3",
         "--agents", "3", "--rounds", "2", "--quiet", "--out", str(run)],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    subprocess.run(
        [*debategraph, "export", str(run), "--to", "inspect", "--out", str(logs)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    first = json.loads((run / "results.jsonl").read_text().splitlines()[0])
    return logs, str(first["id"])


def _click(text: str) -> str:
    """JavaScript that clicks the first element whose own text is ``text``."""
    return (
        "[...document.querySelectorAll('*')].find(e => e.children.length === 0 && "
        f"e.textContent.trim() === {json.dumps(text)})?.click()"
    )


async def photograph(
    chromium: str, url: str, wait_for: str, out: Path, click: str | None = None
) -> None:
    """Open ``url`` in headless Chromium, wait until ``wait_for`` shows, save a PNG."""
    import aiohttp

    profile = tempfile.mkdtemp(prefix="chromium-")
    browser = await asyncio.create_subprocess_exec(
        chromium, *CHROMIUM_FLAGS, "--remote-debugging-port=0", f"--user-data-dir={profile}",
        "about:blank", stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert browser.stderr is not None
        port = None
        while port is None:
            line = (await asyncio.wait_for(browser.stderr.readline(), 30)).decode()
            if not line:
                raise SystemExit("chromium exited before it listened")
            found = re.search(r"ws://127\.0\.0\.1:(\d+)/", line)
            port = int(found.group(1)) if found else None
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/json/list") as answer:
                targets = await answer.json()
            page = next(t for t in targets if t.get("type") == "page")
            async with http.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                counter = 0

                async def send(method: str, **params: Any) -> dict[str, Any]:
                    nonlocal counter
                    counter += 1
                    await ws.send_str(
                        json.dumps({"id": counter, "method": method, "params": params})
                    )
                    while True:
                        message = json.loads((await ws.receive()).data)
                        if message.get("id") == counter:
                            return dict(message.get("result") or {})

                await send(
                    "Emulation.setDeviceMetricsOverride",
                    width=WIDTH, height=HEIGHT, deviceScaleFactor=1, mobile=False,
                )  # fmt: skip
                await send("Page.navigate", url=url)
                deadline = time.monotonic() + 60
                script = (
                    f"document.body && document.body.innerText.includes({json.dumps(wait_for)})"
                )
                while time.monotonic() < deadline:
                    shown = await send("Runtime.evaluate", expression=script, returnByValue=True)
                    if shown.get("result", {}).get("value") is True:
                        break
                    await asyncio.sleep(0.5)
                else:
                    raise SystemExit(f"the page never showed {wait_for!r}: {url}")
                if click is not None:  # e.g. a round in the transcript's outline
                    await send("Runtime.evaluate", expression=_click(click))
                await asyncio.sleep(2)  # let the layout settle
                picture = await send("Page.captureScreenshot", format="png")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(base64.b64decode(picture["data"]))
    finally:
        browser.terminate()
        await browser.wait()
        shutil.rmtree(profile, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/images/inspect-view.png"))
    parser.add_argument("--tab", default="transcript", help="the sample's tab to show")
    parser.add_argument("--click", default="round 1", help="what to click before the picture")
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("needs Chromium: apt-get install -y chromium")
    with tempfile.TemporaryDirectory(prefix="inspect-shot-") as tmp:
        logs, item = make_logs(Path(tmp) / "results" / "gsm8k-du")
        (log,) = sorted(logs.glob("*.eval"))
        port = free_port()
        view = subprocess.Popen(
            ["inspect", "view", "--log-dir", str(logs), "--host", "127.0.0.1", "--port",
             str(port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            wait_for_port(port, 60)
            url = (
                f"http://127.0.0.1:{port}/#/logs/{quote(log.name)}/samples/sample/"
                f"{quote(item)}/1/{args.tab}"
            )
            asyncio.run(photograph(chromium, url, "round 1", args.out, click=args.click or None))
        finally:
            view.terminate()
            view.wait()
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
