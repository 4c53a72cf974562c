# luagent — see README.md. Every target works on a fresh machine with Go.
GO      ?= go
BIN     ?= bin/luagent
PKGS    := ./...
FUZZTIME ?= 60s
NPM     ?= npm
# Stamps written after the pinned npm peers (internal/peers) are installed.
PEERS_STAMP := test/peers/node_modules/.installed
TSCLIENT_STAMP := test/tsclient/node_modules/.installed
JUDGES_STAMPS := test/conformance/legacy/node_modules/.installed test/conformance/modern/node_modules/.installed

.PHONY: build test demo bench bench-patterns bench-ask fuzz lint clean peers judges conformance nginx

# Static (CGO_ENABLED=0): nothing here needs cgo, and a start without ld.so
# and libc is 0.7 ms faster (BENCHMARKS.md, W4). -race tests still use cgo.
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/luagent

# The README's test command; .ci/run calls it. test/all.sh runs the Go
# tests, then the conformance judges, and ends with a summary.
test: lint peers judges nginx build
	@GO="$(GO)" test/all.sh $(BIN) $(PKGS)

# The official conformance judges (pinned, test/conformance) against the
# fixture served over HTTP; expected failures in test/conformance/expected-failures.yml.
conformance: build judges
	test/conformance/run.sh $(BIN)

demo: build
	$(BIN) run examples/demo.lua

bench: bench-patterns bench-ask
	$(GO) test -run='^$$' -bench=. -benchmem -count=1 $(PKGS)

# Lua string patterns against reference Lua 5.1 (Debian's lua5.1, installed
# when missing), rounds interleaved (BENCHMARKS.md).
bench-patterns: build
	@command -v lua5.1 >/dev/null || { \
	  sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  echo "installing lua5.1 (Debian's package) for the pattern benchmark"; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq lua5.1 >/dev/null; }
	test/bench/patterns.sh $(BIN) 5

# One-shot `luagent ask` against mcphost on the same job (BENCHMARKS.md):
# server-everything from `make peers`, a local model stand-in, mcphost built
# from the Go module proxy into $MCPHOST_DIR (default /tmp/mcphost; or
# MCPHOST=path), skipped with a note when it cannot be built. ASK_ROUNDS
# interleaved rounds.
ASK_ROUNDS ?= 11
bench-ask: build $(PEERS_STAMP)
	test/bench/ask.sh $(BIN) $(ASK_ROUNDS)

# Each parser has a fuzz target; `make test` replays their corpora.
fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzRoundTrip -fuzztime=$(FUZZTIME) ./luabind/value/
	$(GO) test -run='^$$' -fuzz=FuzzCompile -fuzztime=$(FUZZTIME) ./luabind/vm/
	$(GO) test -run='^$$' -fuzz=FuzzPattern -fuzztime=$(FUZZTIME) ./luabind/vm/
	$(GO) test -run='^$$' -fuzz=FuzzComplete -fuzztime=$(FUZZTIME) ./luabind/host/
	$(GO) test -run='^$$' -fuzz=FuzzDecode -fuzztime=$(FUZZTIME) ./runtime/jsonrpc/
	$(GO) test -run='^$$' -fuzz=FuzzMembers -fuzztime=$(FUZZTIME) ./internal/jsonscan/
	$(GO) test -run='^$$' -fuzz=FuzzAppendString -fuzztime=$(FUZZTIME) ./internal/jsonscan/
	$(GO) test -run='^$$' -fuzz=FuzzReadFraming -fuzztime=$(FUZZTIME) ./runtime/transport/
	$(GO) test -run='^$$' -fuzz=FuzzAcceptsJSON -fuzztime=$(FUZZTIME) ./runtime/mcp/
	$(GO) test -run='^$$' -fuzz=FuzzHTTPAddr -fuzztime=$(FUZZTIME) ./cmd/luagent/
	$(GO) test -run='^$$' -fuzz=FuzzParse -fuzztime=$(FUZZTIME) ./runtime/catalog/
	$(GO) test -run='^$$' -fuzz=FuzzImport -fuzztime=$(FUZZTIME) ./runtime/catalog/
	$(GO) test -run='^$$' -fuzz=FuzzExampleArguments -fuzztime=$(FUZZTIME) ./runtime/llm/
	$(GO) test -run='^$$' -fuzz=FuzzFrontmatter -fuzztime=$(FUZZTIME) ./runtime/skills/
	$(GO) test -run='^$$' -fuzz=FuzzReader -fuzztime=$(FUZZTIME) ./runtime/sse/

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

clean:
	rm -rf bin

# The npm MCP servers the interop tests talk to (test/peers/package-lock.json)
# and the TypeScript SDK v2 client that drives luagent's servers
# (test/tsclient/package-lock.json, with its own Node 24). Reinstalled only
# when node_modules is missing or older than the lock file.
peers: $(PEERS_STAMP) $(TSCLIENT_STAMP)

$(PEERS_STAMP): test/peers/package-lock.json test/peers/package.json
	$(NPM) ci --prefix test/peers --no-audit --no-fund --loglevel=error
	@touch $@

judges: $(JUDGES_STAMPS)

# nginx for test/scaleout (replicas behind a round-robin proxy): Debian's
# package, installed when missing (with sudo when not root);
# LUAGENT_SKIP_NGINX=1 skips both the install and that test.
nginx:
	@[ "$$LUAGENT_SKIP_NGINX" = 1 ] || command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { \
	  sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  echo "installing nginx (Debian's package) for test/scaleout"; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq nginx >/dev/null; }

test/conformance/%/node_modules/.installed: test/conformance/%/package-lock.json test/conformance/%/package.json
	$(NPM) ci --prefix test/conformance/$* --no-audit --no-fund --loglevel=error
	@touch $@

$(TSCLIENT_STAMP): test/tsclient/package-lock.json test/tsclient/package.json
	$(NPM) ci --prefix test/tsclient --no-audit --no-fund --loglevel=error
	@touch $@
