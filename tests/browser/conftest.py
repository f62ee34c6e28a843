"""The world each test starts: its own nats-server on a free loopback port in a temp dir, `floor
run` on it (every service, the lobby on another free port, the console with a password), and a
`floor sim` playing a tournament against it through NATS_URL. Nothing is shared between tests and
nothing touches the nats-server on port 4222.

Binaries: FLOOR_BIN (default target/debug/floor, built by tests/browser/run) and
FLOOR_NATS_SERVER (default: what deploy/ensure-nats-server finds or installs).
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
# A short structure so a level changes within seconds (examples/structures/demo.toml is 45 s).
FAST_STRUCTURE = HERE / "fast.toml"
CONSOLE_PASSWORD = "browser-test-password"
CHROMIUM = os.environ.get("FLOOR_CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = ROOT / "docs" / "screenshots"
# How long any one condition is waited for before the test fails (the debug build on 2 cores).
PATIENCE_S = 60


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what: str, check, timeout: float = PATIENCE_S, every: float = 0.1):
    """Polls `check` until it returns something truthy, and returns that; fails after `timeout`."""
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = check()
            if value:
                return value
        except Exception as e:  # noqa: BLE001 - anything not ready yet is retried
            last_error = e
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout} s waiting for {what} (last error: {last_error!r})")


def floor_bin() -> str:
    path = os.environ.get("FLOOR_BIN", str(ROOT / "target" / "debug" / "floor"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"no floor binary at {path}: run `cargo build -p floor` (tests/browser/run does)")
    return path


def nats_server_bin() -> str:
    given = os.environ.get("FLOOR_NATS_SERVER")
    if given:
        return given
    return subprocess.run([str(ROOT / "deploy" / "ensure-nats-server")], check=True, capture_output=True, text=True).stdout.strip()


class World:
    """One nats-server, `floor run` on it, and the sims started with `sim`."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.procs: list[tuple[str, subprocess.Popen, Path]] = []
        self.nats_port = free_port()
        self.nats_url = f"nats://127.0.0.1:{self.nats_port}"
        self.http = f"127.0.0.1:{free_port()}"
        self.base = f"http://{self.http}"
        self.env = {
            **os.environ,
            "NATS_URL": self.nats_url,
            "FLOOR_HTTP": self.http,
            "FLOOR_CONSOLE_PASSWORD": CONSOLE_PASSWORD,
            "RUST_LOG": os.environ.get("RUST_LOG", "warn"),
        }

    def spawn(self, name: str, args: list[str], env=None) -> subprocess.Popen:
        log = self.tmp / f"{name}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                args, cwd=self.tmp, env=env or self.env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.procs.append((name, proc, log))
        return proc

    def start(self, run_args: tuple[str, ...] = (), ready=None) -> "World":
        """nats-server, then `floor run` with `run_args`; waits until `ready()` (by default, until
        the lobby answers GET /api/health over plain HTTP)."""
        store = self.tmp / "jetstream"
        config = self.tmp / "nats.conf"
        config.write_text(f'listen: "127.0.0.1:{self.nats_port}"\njetstream {{\n  store_dir: "{store}"\n}}\n')
        self.spawn("nats-server", [nats_server_bin(), "-c", str(config)])
        wait_for("nats-server's port", lambda: socket.create_connection(("127.0.0.1", self.nats_port), timeout=1).close() or True)
        self.spawn("floor-run", [floor_bin(), "run", *run_args])
        wait_for("the lobby (GET /api/health)", ready or (lambda: self.get("/api/health")[0] == 200))
        return self

    def get(self, path: str) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(self.base + path, timeout=10) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def json(self, path: str):
        status, body = self.get(path)
        assert status == 200, f"GET {path}: {status} {body[:300]!r}"
        return json.loads(body)

    def floor(self, *args: str) -> str:
        """A director command (`floor tournament create …`), its stdout."""
        done = subprocess.run([floor_bin(), *args], cwd=self.tmp, env=self.env, capture_output=True, text=True, timeout=PATIENCE_S)
        assert done.returncode == 0, f"floor {' '.join(args)}: exit {done.returncode}\n{done.stderr}"
        return done.stdout

    def sim(self, entrants: int = 40, hand_every: float = 1, seed: int = 7, structure: Path = FAST_STRUCTURE) -> subprocess.Popen:
        """`floor sim` against this world's platform, in the background."""
        args = [floor_bin(), "sim", "--entrants", str(entrants), "--seed", str(seed), "--hand-every", str(hand_every)]
        args += ["--structure-file", str(structure)]
        return self.spawn(f"sim-{len(self.procs)}", args)

    def running_tournament(self, timeout: float = PATIENCE_S) -> dict:
        """The first running tournament's document (from GET /api/tournaments)."""

        def running():
            docs = self.json("/api/tournaments?state=running")["tournaments"]
            return docs[0] if docs and docs[0].get("clock", {}).get("level") else None

        return wait_for("a running tournament in /api/tournaments", running, timeout)

    def stop(self):
        for _, proc, _ in reversed(self.procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for _, proc, _ in reversed(self.procs):
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

    def logs(self) -> str:
        out = []
        for name, _, log in self.procs:
            text = log.read_text(errors="replace") if log.exists() else ""
            out.append(f"--- {name} (last 40 lines) ---\n" + "\n".join(text.splitlines()[-40:]))
        return "\n".join(out)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    world = getattr(item, "_floor_world", None)
    if report.when == "call" and report.failed and world is not None:
        report.sections.append(("floor world logs", world.logs()))


@pytest.fixture
def world(request):
    with tempfile.TemporaryDirectory(prefix="floor-browser-") as tmp:
        w = World(Path(tmp))
        request.node._floor_world = w
        try:
            yield w.start()
        finally:
            w.stop()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=PATIENCE_S * 1000)

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB", timezone_id="UTC")
    page = context.new_page()
    page.set_default_timeout(PATIENCE_S * 1000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.js_errors = errors
    yield page
    context.close()


def update_screenshots() -> bool:
    """Screenshots in docs/screenshots are rewritten only when asked (CI leaves the tree clean)."""
    return os.environ.get("FLOOR_UPDATE_SCREENSHOTS") == "1"


def screenshot(page, name: str):
    if update_screenshots():
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def players_left(text: str) -> tuple[int, int]:
    """`Players left 37 of 40 entries` → (37, 40)."""
    m = re.search(r"Players left\s*([\d,]+) of ([\d,]+)", text)
    assert m, f"no 'Players left' in {text!r}"
    return int(m.group(1).replace(",", "")), int(m.group(2).replace(",", ""))
