# boolpool — make targets. Two commands set everything up on a fresh
# Debian/Ubuntu machine with Go: `make run` and `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

ADDR ?= 127.0.0.1:8080
GO ?= go
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
# staticcheck for 'make lint', pinned, from the Go module proxy; 2026.2.2
# (v0.8.2) knows Go 1.26 (go.mod).
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Every package but the browser suite (web/e2e), for make test-unit.
UNIT_PKGS = $$($(GO) list ./... | grep -v /web/e2e)
# Run every Go command with the managed database unless DATABASE_URL is set.
WITH_DB = eval "$$(scripts/db.sh start)"; export DATABASE_URL;

.PHONY: help deps bin lab build wasm db run stop clean-db test test-unit fmt-check vet lint schema bench fuzz clean

help:
	@echo "make run      install what is missing, start Postgres+pgvector, load the demo, serve the app"
	@echo "make test     install what is missing, gofmt/vet check, go test -race ./... on real Postgres"
	@echo "make test-unit  the fast loop: go test -short of every package but the browser suite, no fuzzing, real Postgres"
	@echo "make lint     go vet (native and wasm) plus staticcheck (pinned, from the Go module proxy)"
	@echo "make schema   regenerate migrations/schema.sql from a freshly migrated database"
	@echo "make build    bin/boolpool and static/app.wasm (precompressed)"
	@echo "make db       start (or reuse) the managed Postgres and migrate it; prints DATABASE_URL=..."
	@echo "make stop     stop the managed Postgres;  make clean-db  also delete its data"
	@echo "make lab      bin/boolpool-lab, the benchmark and load tools (not linked into bin/boolpool)"
	@echo "make bench    run the benchmarks (bin/boolpool-lab bench); writes bench/results.md"
	@echo "make fuzz     longer fuzzing runs"

# deps installs the runtime pieces the encoders need (cached, idempotent)
# and prepares the encoders' ONNX files with a normal (non -race) build, so
# tests and first use only load them.
deps: bin
	@scripts/install-onnxruntime.sh >/dev/null
	@scripts/fetch-models.sh >/dev/null
	@bin/boolpool model prepare >/dev/null

bin:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/boolpool ./cmd/boolpool

# lab: the second binary, the benchmarks, load generator and synthetic data
# (server/devtools); the load suites start bin/boolpool as their server.
lab:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/boolpool-lab ./cmd/boolpool-lab

build: deps wasm

# The browser app: built for js/wasm (no cgo), then precompressed.
wasm:
	@if [ -f wasm/main.go ]; then \
	  GOOS=js GOARCH=wasm CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o static/app.wasm ./wasm; \
	fi

# db starts (or reuses) Postgres, then builds bin/boolpool when needed and
# applies the migrations, so the printed URL is ready for 'boolpool import'.
# stdout stays one line (DATABASE_URL=...); progress goes to stderr.
db:
	@line="$$(scripts/db.sh start)"; \
	  $(GO) build -ldflags "$(LDFLAGS)" -o bin/boolpool ./cmd/boolpool >&2; \
	  DATABASE_URL="$${line#DATABASE_URL=}" bin/boolpool migrate >&2; \
	  echo "$$line"

run: build
	@$(WITH_DB) \
	  bin/boolpool migrate; \
	  bin/boolpool demo load; \
	  echo; echo "boolpool is at http://$(ADDR)/  (Ctrl-C stops the server; 'make stop' stops Postgres)"; echo; \
	  exec $(CURDIR)/bin/boolpool serve -addr $(ADDR)

# The bracket keeps pkill's pattern from matching the shell that runs it
# (its command line holds "boolpool[ ]serve", the pattern matches "boolpool serve").
stop:
	@-pkill -f "$(CURDIR)/bin/boolpool[ ]serve" 2>/dev/null || true
	@scripts/db.sh stop

clean-db:
	@scripts/db.sh clean

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go'))"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./wasm/... $$($(GO) list ./web/... | grep -v /e2e)

# lint: go vet plus staticcheck, native and for the wasm packages; checks
# turned off are in staticcheck.conf with the reason.
# staticcheck is built for this machine into bin/ (go install, cached) so
# that the wasm pass can run it with GOOS=js.
lint: vet
	@GOBIN=$(CURDIR)/bin $(GO) install $(STATICCHECK)
	bin/staticcheck ./...
	GOOS=js GOARCH=wasm bin/staticcheck ./wasm/... $$($(GO) list ./web/... | grep -v /e2e)

test: deps fmt-check vet wasm
	@scripts/install-chromium.sh >/dev/null
	@$(WITH_DB) $(GO) test -race -count=1 -timeout 25m ./...
	@$(WITH_DB) scripts/fuzz.sh 4s

# test-unit: the fast loop beside make test: no browser suite (web/e2e), no
# fuzzing, no -race, -short (skips the tests that wait out River's timers
# or build a corpus index); still real Postgres.
test-unit: deps wasm
	@$(WITH_DB) $(GO) test -short -count=1 -timeout 15m $(UNIT_PKGS)

# schema: rewrite migrations/schema.sql, the schema the migrations build
# (TestSchemaSnapshot in server/store fails while the two differ).
schema:
	@$(WITH_DB) BOOLPOOL_WRITE_SCHEMA=1 $(GO) test -count=1 -run '^TestSchemaSnapshot$$' ./server/store/

bench: build lab
	@$(WITH_DB) bin/boolpool migrate >/dev/null && bin/boolpool-lab bench --server-bin bin/boolpool --out bench/results.md

fuzz:
	@scripts/fuzz.sh 60s

clean:
	rm -rf bin static/app.wasm static/app.wasm.gz static/app.wasm.br
