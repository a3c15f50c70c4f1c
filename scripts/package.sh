#!/usr/bin/env bash
# Builds a desktop package of Fanout Inspector for this system with the Fyne
# tool: the binary, the icon and a .desktop entry with the metadata of
# cmd/inspector/FyneApp.toml. Writes "Fanout Inspector.tar.xz" (Linux) in the
# repository's top folder. The first --release build compiles GLFW's C code.
set -euo pipefail
cd "$(dirname "$0")/.."
FYNE_TOOL_VERSION="${FYNE_TOOL_VERSION:-v1.7.4}"
gobin="$(go env GOPATH)/bin"
if ! "$gobin/fyne" version 2>/dev/null | grep -q "${FYNE_TOOL_VERSION#v}"; then
	echo "package: installing the fyne tool $FYNE_TOOL_VERSION" >&2
	go install "fyne.io/tools/cmd/fyne@$FYNE_TOOL_VERSION"
fi
os="$(go env GOOS)"
# fyne package bumps Build in FyneApp.toml; keep the checked-in file as it is.
cp cmd/inspector/FyneApp.toml /tmp/FyneApp.toml.$$
trap 'cp /tmp/FyneApp.toml.$$ cmd/inspector/FyneApp.toml; rm -f /tmp/FyneApp.toml.$$' EXIT
"$gobin/fyne" package --os "$os" --src cmd/inspector --release
ls -l ./*.tar.xz 2>/dev/null || true
