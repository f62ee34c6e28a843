"""Copies the event types the lobby's OpenAPI document shares with the contract (Money,
EntryModel, Level, …) from schemas/ into services/lobby/openapi.json, so the two never differ:
schemas/ is generated from the Rust types (`make schemas`), the OpenAPI document is written by
hand for the lobby's own shapes and names where each shared type comes from in
`x-floor-imported.from`; the types those reference come along.

    python tests/browser/openapi_sync.py          # rewrite the document
    python tests/browser/openapi_sync.py --check  # exit 1 if it is not up to date (the test suite)
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "services" / "lobby" / "openapi.json"


def rewrite(value):
    """`#/$defs/X` → `#/components/schemas/X`, everywhere in a schema."""
    if isinstance(value, dict):
        return {k: (v.replace("#/$defs/", "#/components/schemas/") if k == "$ref" else rewrite(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [rewrite(v) for v in value]
    return value


def refs(value, out):
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "$ref" and v.startswith("#/$defs/"):
                out.add(v.removeprefix("#/$defs/"))
            else:
                refs(v, out)
    elif isinstance(value, list):
        for v in value:
            refs(v, out)
    return out


def definition(source: dict, name: str) -> dict:
    if source.get("title") == name and name not in source.get("$defs", {}):
        # The file's own schema (schemas/definitions/structure.json is `Structure`).
        return {k: v for k, v in source.items() if k not in ("$schema", "$defs", "title")}
    return source["$defs"][name]


def synced(document: dict) -> dict:
    imported = dict(document["x-floor-imported"]["from"])
    schemas = {k: v for k, v in document["components"]["schemas"].items() if k not in imported}
    copied = {}
    todo = list(imported)
    while todo:
        name = todo.pop()
        if name in copied:
            continue
        source = json.loads((ROOT / imported[name]).read_text())
        schema = definition(source, name)
        copied[name] = rewrite(schema)
        for needed in sorted(refs(schema, set())):
            if needed not in imported:
                if needed in schemas:
                    raise SystemExit(f"{name} (from {imported[name]}) needs {needed}, which the document defines by hand")
                imported[needed] = imported[name]
            todo.append(needed)
    out = dict(document)
    out["components"] = {**document["components"], "schemas": {**schemas, **dict(sorted(copied.items()))}}
    out["x-floor-imported"] = {**document["x-floor-imported"], "from": dict(sorted(imported.items()))}
    return out


def text(document: dict) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    current = DOCUMENT.read_text()
    wanted = text(synced(json.loads(current)))
    if "--check" in sys.argv[1:]:
        if current != wanted:
            print(f"{DOCUMENT.relative_to(ROOT)} differs from schemas/: run python {Path(__file__).relative_to(ROOT)}", file=sys.stderr)
            return 1
        return 0
    DOCUMENT.write_text(wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
