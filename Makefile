# Fanout Inspector. The two commands a newcomer needs:
#   make run    build and open the app (connected to the embedded demo server)
#   make test   install what the tests need, then run every test with the race detector
# Each installs what it needs itself (scripts/setup.sh): the app only the
# Debian packages its cgo/OpenGL build needs; the tests also Xvfb,
# ImageMagick and the npm packages of the interop tests.

export LANG ?= en_US.UTF-8
GO ?= go
ARGS ?=

.PHONY: run test test-short test-jaeger bench build package screenshot smoke setup setup-app clean

# setup installs what the tests need; setup-app only what building the app needs.
setup:
	scripts/setup.sh

setup-app:
	scripts/setup.sh --app

# run builds bin/inspector and runs it in place of the recipe's shell, so
# its exit status is make's (go run would exit 1 on Ctrl-C). On a terminal
# it runs as a job of its own (bash -m): Ctrl-C then reaches the app, which
# closes its recording and exits 0, and not make, which would die of it.
run: build
	@if [ -t 0 ]; then exec bash -mc 'bin/inspector "$$@"; exit $$?' inspector $(ARGS); else exec bin/inspector $(ARGS); fi

build: setup-app
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
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./recorder/ ./engine/... ./internal/inproc/ ./ui/...

package: setup-app
	scripts/package.sh

# screenshot and smoke need Xvfb and ImageMagick, not the npm packages.
screenshot:
	scripts/setup.sh --no-npm
	scripts/screenshot.sh

smoke:
	scripts/setup.sh --no-npm
	scripts/gui-smoke.sh
	scripts/gui-follow-smoke.sh

clean:
	rm -rf bin
