# Fanout Inspector. The two commands a newcomer needs:
#   make run    build and open the app (connected to the embedded demo server)
#   make test   install what the tests need, then run every test with the race detector
# Both install their Debian and npm dependencies themselves (scripts/setup.sh).

export LANG ?= en_US.UTF-8
GO ?= go
ARGS ?=

.PHONY: run test test-short test-jaeger bench build package screenshot smoke setup clean

setup:
	scripts/setup.sh

run: setup
	$(GO) run ./cmd/inspector $(ARGS)

build: setup
	$(GO) build -o bin/inspector ./cmd/inspector

test: setup
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 40m ./...

# test-jaeger pushes a run live to a real Jaeger (docs/otlp.md). scripts/jaeger.sh builds
# Jaeger from the Go module proxy the first time (minutes; cached in ~/.cache after that).
test-jaeger: setup
	FANOUT_JAEGER="$$(scripts/jaeger.sh)" && export FANOUT_JAEGER && \
		$(GO) test -count=1 -timeout 10m -run 'TestOTLPPushJaeger' -v ./cmd/inspector/

# test-short skips the slow end-to-end and interop tests.
test-short:
	$(GO) test -short ./...

bench: setup
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./recorder/ ./engine/... ./ui/

package: setup
	scripts/package.sh

screenshot: setup
	scripts/screenshot.sh

smoke: setup
	scripts/gui-smoke.sh

clean:
	rm -rf bin
