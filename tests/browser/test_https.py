"""HTTPS built in (issue 34): `floor run --tls-cert CERT --tls-key KEY`, as a newcomer types it.

The lobby and the console are then served over TLS only: a client that trusts the certificate
gets the lobby's health and the console's sign-in page (its session cookie marked `Secure`), and
plain HTTP on the same port gets no page. The certificate is the lobby's test fixture
(services/lobby/tests/fixtures: CN localhost, for 127.0.0.1 too).
"""

import http.client
import ssl
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from conftest import CONSOLE_PASSWORD, World

FIXTURES = Path(__file__).resolve().parents[2] / "services" / "lobby" / "tests" / "fixtures"


def trusting() -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(FIXTURES / "localhost.crt"))


def test_floor_run_serves_the_lobby_and_the_console_over_https_with_its_flags():
    with tempfile.TemporaryDirectory(prefix="floor-https-") as tmp:
        world = World(Path(tmp))
        base = f"https://{world.http}"

        def healthy() -> bool:
            try:
                with urllib.request.urlopen(base + "/api/health", context=trusting(), timeout=5) as r:
                    return r.status == 200
            except (urllib.error.URLError, ConnectionError, OSError):
                return False

        try:
            cert, key = str(FIXTURES / "localhost.crt"), str(FIXTURES / "localhost.key")
            world.start(("--tls-cert", cert, "--tls-key", key), ready=healthy)

            with urllib.request.urlopen(base + "/", context=trusting(), timeout=10) as r:
                assert r.status == 200 and b"<html" in r.read().lower()
            host, port = world.http.split(":")
            signin = http.client.HTTPSConnection(host, int(port), context=trusting(), timeout=10)
            body = f"director=Ana&password={CONSOLE_PASSWORD}"
            signin.request("POST", "/console/login", body=body, headers={"Content-Type": "application/x-www-form-urlencoded"})
            answer = signin.getresponse()
            answer.read()
            cookie = answer.getheader("Set-Cookie") or ""
            assert answer.status == 303 and "; Secure" in cookie and "HttpOnly" in cookie, (answer.status, cookie)

            plain = http.client.HTTPConnection(host, int(port), timeout=10)
            try:
                plain.request("GET", "/api/health")
                status = plain.getresponse().status
            except (http.client.HTTPException, ConnectionError, OSError):
                status = None
            assert status is None, f"plain HTTP on the TLS port answered {status}"
        except BaseException:
            print(world.logs())
            raise
        finally:
            world.stop()
