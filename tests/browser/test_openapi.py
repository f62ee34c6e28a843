"""The lobby's OpenAPI document (services/lobby/openapi.json, served at GET /api/openapi.json)
against a running lobby with a `floor sim` playing (issue 23, "Directors"):

- schemathesis generates requests for every operation from the document and checks every
  answer: no 5xx, status codes, content types and bodies as documented;
- the documents of a real tournament (list, one, structure, the first event of the live feed)
  match it with every object closed (`additionalProperties: false` on the lobby's own shapes), so
  a field the lobby adds and the document does not describe fails here;
- the types shared with the contract are the ones in schemas/ (tests/browser/openapi_sync.py).
"""

import copy
import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import jsonschema_rs
import openapi_sync
from conftest import PATIENCE_S, wait_for

HERE = Path(__file__).resolve().parent


def test_the_types_shared_with_the_contract_are_the_ones_in_schemas():
    current = openapi_sync.DOCUMENT.read_text()
    assert current == openapi_sync.text(openapi_sync.synced(json.loads(current))), "run python tests/browser/openapi_sync.py"


def test_schemathesis_finds_every_answer_as_documented_and_no_server_error(world):
    world.sim(entrants=20, hand_every=1)
    tid = world.running_tournament()["tournament_id"]
    served = world.json("/api/openapi.json")
    assert served == json.loads(openapi_sync.DOCUMENT.read_text())
    # Every operation from generated data (made-up ids: 404s), then the document, its structure,
    # seat map and player search with the sim's tournament as the id. (Its live feed stays open by design, so it
    # is read in the test below instead.)
    schemathesis(world, [])
    config = world.tmp / "schemathesis.toml"
    config.write_text(f'[parameters]\n"path.id" = "{tid}"\n')
    found = schemathesis(world, ["--include-path-regex", r"^/api/tournaments/\{id\}(/structure|/tables|/players)?$"], config)
    assert "Missing test data" not in found and "4 selected" in found, f"the real id was not used:\n{found[-3000:]}"


def schemathesis(world, args: list[str], config: Path | None = None):
    command = [str(Path(sys.executable).parent / "schemathesis"), "--no-color"]
    if config:
        command += ["--config-file", str(config)]
    command += [
        "run", f"{world.base}/api/openapi.json",
        "--checks", "all",
        "--phases", "examples,coverage,fuzzing",
        "--max-examples", "40",
        "--request-timeout", "10",
        "--workers", "2",
        "--seed", "7",
        *args,
    ]  # fmt: skip
    run = subprocess.run(command, cwd=world.tmp, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, f"schemathesis found problems:\n{run.stdout[-12000:]}\n{run.stderr[-3000:]}"
    return run.stdout


def closed(openapi: dict) -> dict:
    """The document's schemas with the lobby's own objects closed to fields they do not name."""
    strict = copy.deepcopy(openapi["components"]["schemas"])
    imported = openapi["x-floor-imported"]["from"]
    for name, schema in strict.items():
        if name not in imported and schema.get("type") == "object" and "properties" in schema:
            schema.setdefault("additionalProperties", False)
    # allOf with a closed part would refuse the other part's fields: close the whole instead.
    td = strict["TournamentDocument"]
    doc = copy.deepcopy(strict["LobbyDocument"])
    doc["properties"]["waiting_on"] = td["allOf"][1]["properties"]["waiting_on"]
    doc["required"] = [*doc["required"], "waiting_on"]
    strict["TournamentDocument"] = doc
    return strict


def validator(openapi: dict, name: str):
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": f"#/components/schemas/{name}", "components": {"schemas": closed(openapi)}}
    return jsonschema_rs.validator_for(schema)


def first_event(url: str) -> dict:
    """The first `event: document` of a live feed."""
    with urllib.request.urlopen(url, timeout=PATIENCE_S) as stream:
        assert stream.headers.get("Content-Type", "").startswith("text/event-stream")
        fields = {}
        for raw in stream:
            line = raw.decode().rstrip("\n")
            if not line:
                if fields.get("event") == "document":
                    return fields
                fields = {}
            elif not line.startswith(":"):
                key, _, value = line.partition(":")
                fields[key] = value.removeprefix(" ")
    raise AssertionError("the feed ended before a document")


def test_a_real_tournaments_documents_have_only_described_fields(world):
    openapi = json.loads(openapi_sync.DOCUMENT.read_text())
    world.sim(entrants=30, hand_every=1)
    doc = world.running_tournament()
    tid = doc["tournament_id"]
    # Mid-tournament: the clock running, payouts projected, players out.
    doc = wait_for("a bust", lambda: (d := world.json(f"/api/tournaments/{tid}"))["live_entries"] < d["entrants"] and d)

    def check(name, value):
        errors = [f"{e.instance_path}: {e.message}" for e in validator(openapi, name).iter_errors(value)]
        assert not errors, f"{name}: {errors[:10]}\n{json.dumps(value)[:2000]}"

    check("TournamentDocument", doc)
    check("TournamentPage", world.json("/api/tournaments"))
    check("TournamentPage", world.json("/api/tournaments?state=running&per_page=1"))
    check("Structure", world.json(f"/api/tournaments/{tid}/structure"))
    check("Health", world.json("/api/health"))
    tables = world.json(f"/api/tournaments/{tid}/tables?per_page=2")
    check("TablesPage", tables)
    assert tables["tables"] and tables["summary"]["seated"] > 0, tables
    found = world.json(f"/api/tournaments/{tid}/players?name=sim-1")
    check("PlayerSearch", found)
    assert any(f["player"] == "sim-1" for f in found["found"]), found
    event = first_event(f"{world.base}/api/tournaments/{tid}/events")
    assert int(event["id"]) > 0
    check("TournamentDocument", json.loads(event["data"]))
    for path, status, code in [
        ("/api/tournaments/00000000-0000-4000-8000-000000000000", 404, "unknown_tournament"),
        ("/api/tournaments?state=open", 400, "invalid_field"),
        ("/api/nothing", 404, "not_found"),
    ]:
        got, body = world.get(path)
        assert got == status, (path, got, body)
        check("Error", json.loads(body))
        assert json.loads(body)["error"]["code"] == code
