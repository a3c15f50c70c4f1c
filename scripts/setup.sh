#!/usr/bin/env bash
# Installs what building and testing Fanout Inspector needs on a Debian
# machine, and nothing when it is already there:
#   - the C toolchain and headers Fyne's OpenGL/GLFW driver builds against
#     (cgo): all that building and running the app needs,
#   - Xvfb, xwininfo and ImageMagick for the GUI smoke tests and screenshots,
#   - the npm packages of the TypeScript interop servers (SDK 1.x and v2,
#     and the reference server server-everything)
#     and of the real clients the proxy tests drive, from their lockfiles.
# Usage: scripts/setup.sh [--app | --no-npm]
#   --app     only what building the app needs (make build, make run)
#   --no-npm  everything but the npm packages
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
"" | --app | --no-npm) ;;
*)
	echo "setup: unknown option $mode (want --app or --no-npm)" >&2
	exit 2
	;;
esac

debs=(gcc pkg-config libgl1-mesa-dev xorg-dev)
if [ "$mode" != --app ]; then
	debs+=(xvfb x11-utils imagemagick)
fi
missing=()
for p in "${debs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "setup: installing Debian packages: ${missing[*]}" >&2
	sudo=""
	if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v go >/dev/null; then
	echo "setup: Go is not on PATH; install Go 1.26 or newer first" >&2
	exit 1
fi

if [ -z "$mode" ]; then
	# Each TypeScript interop folder with the package that shows its
	# node_modules is installed; npm ci runs only where it is missing.
	for entry in \
		"engine/interop/testdata/tsserver:@modelcontextprotocol/sdk" \
		"engine/interop/testdata/tsserver-v2:@modelcontextprotocol/server" \
		"engine/interop/testdata/everything:@modelcontextprotocol/server-everything" \
		"engine/interop/testdata/clients:@modelcontextprotocol/inspector"; do
		ts=${entry%%:*} probe=${entry#*:}
		[ -f "$ts/package-lock.json" ] || continue
		if ! command -v npm >/dev/null; then
			echo "setup: npm is not on PATH; install Node.js 20 and npm for the TypeScript interop tests" >&2
			exit 1
		fi
		if [ ! -d "$ts/node_modules/$probe" ]; then
			echo "setup: installing the npm packages of $ts" >&2
			(cd "$ts" && npm ci --no-audit --no-fund --loglevel=error)
		fi
	done
fi
