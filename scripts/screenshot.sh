#!/usr/bin/env bash
# screenshot.sh draws docs/screenshot.png: the app on a virtual X display,
# mid-run against the demo server, with a fan-out of 12 sampling requests
# served at most 3 at a time with 1 s latency, so the picture shows
# requests queueing (pale) before they are served (solid).
#
# Needs Xvfb and ImageMagick. INSPECTOR_BIN uses a binary instead of
# building one; SHOT_AT is the second at which the picture is taken.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=${INSPECTOR_BIN:-}
if [ -z "$bin" ]; then
  bin="$work/inspector"
  (cd "$root" && CGO_ENABLED=1 go build -o "$bin" ./cmd/inspector)
fi

# Xvfb picks a free display and writes its number on fd 3 once it is ready.
Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp 3>"$work/display" >"$work/xvfb.log" 2>&1 &
xvfb=$!
trap 'kill "$xvfb" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  [ "$(wc -l <"$work/display")" -ge 1 ] && break
  kill -0 "$xvfb" 2>/dev/null || break
  sleep 0.1
done
n=$(head -n1 "$work/display")
[ -n "$n" ] || { echo "screenshot.sh: Xvfb did not start: $(cat "$work/xvfb.log")" >&2; exit 1; }
export DISPLAY=":$n"

LANG=en_US.UTF-8 "$bin" gui --autorun --exit-after 12s \
  --dispatch bounded:3 --latency 1s --args '{"n":12,"kind":"sampling"}' >"$work/app.log" 2>&1 &
app=$!
sleep "${SHOT_AT:-4}"
# The app's window, not the whole screen.
id=$(xwininfo -root -tree | awk '/"Fanout Inspector/ { print $1; exit }')
[ -n "$id" ] || { echo "screenshot.sh: the window did not open" >&2; cat "$work/app.log" >&2; exit 1; }
import -window "$id" "$work/shot.png"
wait "$app" || { cat "$work/app.log" >&2; exit 1; }
mkdir -p "$root/docs"
# Keep the PNG small for the repository.
convert "$work/shot.png" -strip -define png:compression-level=9 "$root/docs/screenshot.png"
echo "wrote $root/docs/screenshot.png ($(identify -format '%wx%h' "$root/docs/screenshot.png"))"
