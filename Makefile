# boolpool — make targets. Two commands set everything up on a fresh
# Debian/Ubuntu machine with Go: `make run` and `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

ADDR ?= 127.0.0.1:8080
GO ?= go
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
# Run every Go command with the managed database unless DATABASE_URL is set.
WITH_DB = eval "$$(scripts/db.sh start)"; export DATABASE_URL;

.PHONY: help deps bin build wasm db run stop clean-db test test-short fmt-check vet bench fuzz clean

help:
	@echo "make run      install what is missing, start Postgres+pgvector, load the demo, serve the app"
	@echo "make test     install what is missing, gofmt/vet check, go test -race ./... on real Postgres"
	@echo "make build    bin/boolpool and static/app.wasm (precompressed)"
	@echo "make db       start (or reuse) the managed Postgres and migrate it; prints DATABASE_URL=..."
	@echo "make stop     stop the managed Postgres;  make clean-db  also delete its data"
	@echo "make bench    run the benchmarks; writes bench/results.md"
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

stop:
	@-pkill -f "$(CURDIR)/bin/boolpool serve" 2>/dev/null || true
	@scripts/db.sh stop

clean-db:
	@scripts/db.sh clean

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go'))"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./wasm/... $$($(GO) list ./web/... | grep -v /e2e)

test: deps fmt-check vet wasm
	@scripts/install-chromium.sh >/dev/null
	@$(WITH_DB) $(GO) test -race -count=1 -timeout 25m ./...
	@$(WITH_DB) scripts/fuzz.sh 4s

bench: build
	@$(WITH_DB) bin/boolpool migrate >/dev/null && bin/boolpool bench --out bench/results.md

fuzz:
	@scripts/fuzz.sh 60s

clean:
	rm -rf bin static/app.wasm static/app.wasm.gz static/app.wasm.br
