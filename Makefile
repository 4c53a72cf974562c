# luagent — see README.md. Every target works on a fresh machine with Go.
# The longer recipes are scripts in scripts/, which also holds the pinned peers,
# judges, fixtures and tests they use.
GO      ?= go
BIN     ?= bin/luagent
PKGS    := ./...
FUZZTIME ?= 60s
NPM     ?= npm

.PHONY: build test demo bench bench-patterns bench-ask bench-lean fuzz lint clean peers judges conformance nginx fresh-check release

# Static (CGO_ENABLED=0): nothing here needs cgo, and a start without ld.so
# and libc is 0.7 ms faster (scripts/bench/BENCHMARKS.md, W4). -race tests still use cgo.
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/luagent

# The README's test command; .ci/run calls it. scripts/test.sh runs the Go
# tests, then the conformance judges, and ends with a summary.
test: lint peers judges nginx build
	@GO="$(GO)" scripts/test.sh $(BIN) $(PKGS)

# The official conformance judges (pinned, scripts/conformance) against the
# fixture served over HTTP; expected failures in scripts/conformance/expected-failures.yml.
conformance: build judges
	scripts/conformance.sh $(BIN)

demo: build
	$(BIN) run examples/demo.lua

bench: bench-patterns bench-ask bench-lean
	$(GO) test -run='^$$' -bench=. -benchmem -count=1 $(PKGS)

# Lua string patterns against reference Lua 5.1 (Debian's lua5.1, installed
# when missing), rounds interleaved (scripts/bench/BENCHMARKS.md).
bench-patterns: build
	@scripts/install-deb.sh lua5.1
	scripts/bench-patterns.sh $(BIN) 5

# One-shot `luagent ask` against mcphost on the same job (scripts/bench/BENCHMARKS.md):
# server-everything from `make peers`, a local model stand-in, mcphost built
# from the Go module proxy into $MCPHOST_DIR (default /tmp/mcphost; or
# MCPHOST=path) by scripts/build-mcphost.sh, skipped with a note when it
# cannot be built. ASK_ROUNDS interleaved rounds.
ASK_ROUNDS ?= 11
bench-ask: build peers
	scripts/bench-ask.sh $(BIN) $(ASK_ROUNDS)

# Issue 32's agent job: a model answering after 1 s, a server starting in
# 3 s; a turn without tool calls and one calling the slow server, luagent
# (tool cache warm, and cold) against mcphost when it is built. LEAN_ROUNDS
# interleaved rounds.
LEAN_ROUNDS ?= 5
bench-lean: build peers
	scripts/bench-lean.sh $(BIN) $(LEAN_ROUNDS)

# Each parser has a fuzz target; `make test` replays their corpora.
fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzRoundTrip -fuzztime=$(FUZZTIME) ./luabind/value/
	$(GO) test -run='^$$' -fuzz=FuzzCompile -fuzztime=$(FUZZTIME) ./luabind/vm/
	$(GO) test -run='^$$' -fuzz=FuzzPattern -fuzztime=$(FUZZTIME) ./luabind/vm/
	$(GO) test -run='^$$' -fuzz=FuzzComplete -fuzztime=$(FUZZTIME) ./luabind/host/
	$(GO) test -run='^$$' -fuzz=FuzzDecode -fuzztime=$(FUZZTIME) ./runtime/jsonrpc/
	$(GO) test -run='^$$' -fuzz=FuzzMembers -fuzztime=$(FUZZTIME) ./runtime/jsonscan/
	$(GO) test -run='^$$' -fuzz=FuzzAppendString -fuzztime=$(FUZZTIME) ./runtime/jsonscan/
	$(GO) test -run='^$$' -fuzz=FuzzReadFraming -fuzztime=$(FUZZTIME) ./runtime/transport/
	$(GO) test -run='^$$' -fuzz=FuzzAcceptsJSON -fuzztime=$(FUZZTIME) ./runtime/mcp/
	$(GO) test -run='^$$' -fuzz=FuzzHTTPAddr -fuzztime=$(FUZZTIME) ./cmd/luagent/
	$(GO) test -run='^$$' -fuzz=FuzzParse -fuzztime=$(FUZZTIME) ./runtime/catalog/
	$(GO) test -run='^$$' -fuzz=FuzzImport -fuzztime=$(FUZZTIME) ./runtime/catalog/
	$(GO) test -run='^$$' -fuzz=FuzzExampleArguments -fuzztime=$(FUZZTIME) ./runtime/llm/
	$(GO) test -run='^$$' -fuzz=FuzzFrontmatter -fuzztime=$(FUZZTIME) ./runtime/skills/
	$(GO) test -run='^$$' -fuzz=FuzzReader -fuzztime=$(FUZZTIME) ./runtime/sse/
	$(GO) test -run='^$$' -fuzz=FuzzText -fuzztime=$(FUZZTIME) ./runtime/visible/
	$(GO) test -run='^$$' -fuzz=FuzzURL -fuzztime=$(FUZZTIME) ./runtime/secret/
	$(GO) test -run='^$$' -fuzz='^FuzzParseCommand$$' -fuzztime=$(FUZZTIME) ./runtime/cmdfile/
	$(GO) test -run='^$$' -fuzz='^FuzzRequest$$' -fuzztime=$(FUZZTIME) ./runtime/cachestub/
	$(GO) test -run='^$$' -fuzz='^FuzzCanonicalJSON$$' -fuzztime=$(FUZZTIME) ./runtime/llm/
	$(GO) test -run='^$$' -fuzz='^FuzzProviderError$$' -fuzztime=$(FUZZTIME) ./runtime/llm/
	$(GO) test -run='^$$' -fuzz='^FuzzRetryAfter$$' -fuzztime=$(FUZZTIME) ./runtime/llm/
	$(GO) test -run='^$$' -fuzz='^FuzzNormalize$$' -fuzztime=$(FUZZTIME) ./runtime/cost/
	$(GO) test -run='^$$' -fuzz='^FuzzSplit$$' -fuzztime=$(FUZZTIME) ./runtime/compact/
	$(GO) test -run='^$$' -fuzz='^FuzzReader$$' -fuzztime=$(FUZZTIME) ./runtime/acp/
	$(GO) test -run='^$$' -fuzz='^FuzzServer$$' -fuzztime=$(FUZZTIME) ./runtime/acp/
	$(GO) test -run='^$$' -fuzz='^FuzzLoad$$' -fuzztime=$(FUZZTIME) ./runtime/servercache/

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

clean:
	rm -rf bin dist

# The README's two commands (make demo, make test) on a fresh clone of HEAD
# in a temporary folder: each one's exit status and wall time.
fresh-check:
	scripts/fresh-clone.sh

# Static builds for five platforms into dist/, with dist/SHA256SUMS; the
# version is `git describe --always --dirty`.
release:
	GO="$(GO)" scripts/release.sh

# The npm MCP servers the interop tests talk to (scripts/peers/package-lock.json)
# and the TypeScript SDK v2 client that drives luagent's servers
# (scripts/tsclient/package-lock.json, with its own Node 24); the Claude
# Agent SDK's types ask's stream-json is checked against (scripts/sdktypes);
# the ACP TypeScript SDK's client that drives `luagent acp` (scripts/acpclient,
# run with scripts/tsclient's Node);
# the judges (scripts/conformance/{legacy,modern}). scripts/install-npm.sh
# runs `npm ci` only where node_modules/.installed is missing or older than
# the lock file.
peers:
	@NPM="$(NPM)" scripts/install-npm.sh scripts/peers scripts/tsclient scripts/sdktypes scripts/acpclient

judges:
	@NPM="$(NPM)" scripts/install-npm.sh scripts/conformance/legacy scripts/conformance/modern

# nginx for scripts/scaleout (replicas behind a round-robin proxy): Debian's
# package, installed when missing (with sudo when not root);
# LUAGENT_SKIP_NGINX=1 skips both the install and that test.
nginx:
	@[ "$$LUAGENT_SKIP_NGINX" = 1 ] || scripts/install-deb.sh nginx
