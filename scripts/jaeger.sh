#!/usr/bin/env bash
# jaeger.sh: build (once) the Jaeger all-in-one binary that the live OTLP push is tested
# against, and print its path. Jaeger v1.76.0's go.mod has replace directives, so
# `go install pkg@version` is refused; instead a scratch module under the cache pins it as a
# tool and `go build` makes the binary. The binary is cached: a second call prints the path at
# once. The first build took 21 minutes on a busy 2-core machine (about 11 on a quiet one).
#
#   scripts/jaeger.sh            build if missing, print the binary's path
#   JAEGER_CACHE=DIR scripts/jaeger.sh   use DIR instead of ~/.cache/fanout-inspector/jaeger
set -euo pipefail

version=v1.76.0
cache="${JAEGER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fanout-inspector/jaeger}/$version"
bin="$cache/jaeger"

if [[ -x "$bin" ]]; then
	echo "$bin"
	exit 0
fi

mkdir -p "$cache/src"
cd "$cache/src"
start=$(date +%s)
if [[ ! -f go.mod ]]; then
	go mod init fanout-inspector/jaeger-build >&2
fi
# GOFLAGS from the caller (e.g. -mod=vendor, -buildvcs) must not leak into the scratch module.
GOFLAGS= go get -tool "github.com/jaegertracing/jaeger/cmd/jaeger@$version" >&2
GOFLAGS= CGO_ENABLED=0 go build -trimpath -o "$bin.tmp" github.com/jaegertracing/jaeger/cmd/jaeger >&2
mv "$bin.tmp" "$bin"
echo "jaeger.sh: built Jaeger $version in $(($(date +%s) - start)) s" >&2
echo "$bin"
