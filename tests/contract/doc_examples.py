"""Every example message in the docs, validated against the JSON Schema it names.

An example is a fenced block whose info string is ``json schema=<file under schemas/>``. Inside,
lines starting with ``//`` are comments (a subject, a header, a remark); the rest is one or more
JSON values one after another (one per line, or spread over several lines). Each value must be
valid against that schema, formats checked where the validator knows them (``uuid``,
``date-time``). A ``json`` block without ``schema=`` in a protocol page is an error: every
message shown to a table-server author is checked.

Usage: python doc_examples.py <repository root>
Exits 1 and prints each failure when any example does not validate.
"""

import json
import pathlib
import re
import sys

from jsonschema import Draft202012Validator, FormatChecker

FENCE = re.compile(r"^```(\S*)(.*)$")
SCHEMA = re.compile(r"^\s*schema=(\S+)\s*$")
# Pages whose every `json` block must name its schema.
PROTOCOL_PAGES = ("docs/table-servers.md",)


def blocks(path: pathlib.Path):
    """Yields (line number, language, attributes, text) for each fenced block of a Markdown file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, language, attributes = i + 1, m.group(1), m.group(2)
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        i += 1
        yield start, language, attributes, "\n".join(body)


def messages(text: str):
    """The JSON values in a block, comments left out."""
    kept = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    decoder = json.JSONDecoder()
    at = 0
    while True:
        while at < len(kept) and kept[at].isspace():
            at += 1
        if at == len(kept):
            return
        value, at = decoder.raw_decode(kept, at)
        yield value


def validator(schemas: pathlib.Path, name: str, cache: dict):
    if name not in cache:
        schema = json.loads((schemas / name).read_text(encoding="utf-8"))
        Draft202012Validator.check_schema(schema)
        cache[name] = Draft202012Validator(schema, format_checker=FormatChecker())
    return cache[name]


def check(schemas: pathlib.Path, pages) -> tuple[int, list[str]]:
    """Validates the examples of `pages`, (name, path) pairs: how many messages, what failed."""
    cache: dict = {}
    checked, failures = 0, []
    for rel, page in pages:
        for line, language, attributes, text in blocks(page):
            if language != "json":
                continue
            m = SCHEMA.match(attributes)
            if not m:
                if rel in PROTOCOL_PAGES:
                    failures.append(f"{rel}:{line}: a json block without schema=<file under schemas/>")
                continue
            name = m.group(1)
            if not (schemas / name).is_file():
                failures.append(f"{rel}:{line}: schemas/{name} does not exist")
                continue
            try:
                values = list(messages(text))
            except json.JSONDecodeError as e:
                failures.append(f"{rel}:{line}: not JSON: {e}")
                continue
            if not values:
                failures.append(f"{rel}:{line}: an example block with no message")
            for value in values:
                checked += 1
                for error in validator(schemas, name, cache).iter_errors(value):
                    where = "/".join(str(p) for p in error.absolute_path) or "(top)"
                    failures.append(f"{rel}:{line}: {json.dumps(value)[:100]}… is not a valid {name}: at {where}: {error.message}")
    return checked, failures


def self_test(schemas: pathlib.Path, tmp: pathlib.Path) -> None:
    """The check must bite: a negative chip count, an abbreviated id, an unmarked block."""
    page = tmp / "bad.md"
    page.write_text(
        "```json schema=tables/report.json\n"
        '{"tournament_id":"0191e0c2-5a1b-7c3d-8e4f-9a0b1c2d3e4f","table":1,"report_id":"r","report":'
        '{"type":"hand_started","hand":1,"button":1,"stacks":[{"seat":1,"entry":1,"chips":-5}]}}\n'
        '{"tournament_id":"0191e0c2-…","table":1,"report_id":"r","report":{"type":"instruction_applied","sequence":1}}\n'
        "```\n"
        "```json\n{}\n```\n",
        encoding="utf-8",
    )
    checked, failures = check(schemas, [(PROTOCOL_PAGES[0], page)])
    if checked != 2 or len(failures) != 3:
        sys.exit(f"doc_examples self-test: bad examples passed ({checked} checked, failures: {failures})")


def main() -> None:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    import tempfile

    schemas = root / "schemas"
    with tempfile.TemporaryDirectory() as tmp:
        self_test(schemas, pathlib.Path(tmp))
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md")), *sorted((root / "examples").glob("**/*.md"))]
    checked, failures = check(schemas, [(p.relative_to(root).as_posix(), p) for p in pages if p.is_file()])
    for failure in failures:
        print(failure)
    if checked == 0:
        sys.exit("doc_examples: no example message found (blocks are marked ```json schema=<file>)")
    if failures:
        sys.exit(f"doc_examples: {len(failures)} of the docs' example messages do not fit their schemas")
    print(f"doc_examples: {checked} example messages in the docs fit their schemas")


if __name__ == "__main__":
    main()
