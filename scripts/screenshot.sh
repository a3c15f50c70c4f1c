#!/usr/bin/env bash
# screenshot.sh draws the pictures of the docs from the real app on a
# virtual X display, against the embedded demo server:
#
#   docs/screenshot.png          mid-run: 12 sampling requests served at
#                                most 3 at a time with 1 s latency, so
#                                the requests queue (pale) before they
#                                are served (solid)
#   docs/gui/SCENE-WxH.png       for each screen of 1400×900 and 1024×700:
#     first-run                  the window as it opens, before a run
#     load                       3,000 echo calls, 50 at once, with two
#                                thresholds
#     rounds                     one call of three rounds (protocol
#                                2026-07-28), its requests under each
#     compare                    a serial fan-out recording compared with
#                                a concurrent one (gui --open --compare)
#   docs/gui/panel-SCENE-1400x900.png  the panels beside the timeline:
#     protocol                   the transcript of a three-round call
#     logs                       the demo's log messages at debug
#     network                    a fan-out over streamable HTTP, the HTTP
#                                exchanges (a demo server on loopback)
#     resources, prompts         the demo server's lists
#
# Needs Xvfb, ImageMagick and xwininfo (make screenshot installs them).
# INSPECTOR_BIN uses a binary instead of building one; ONLY=SCENE makes
# one scene (at both sizes), or hero for docs/screenshot.png alone.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
xvfb=
cleanup() {
  [ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
bin=${INSPECTOR_BIN:-}
if [ -z "$bin" ]; then
  bin="$work/inspector"
  (cd "$root" && CGO_ENABLED=1 go build -o "$bin" ./cmd/inspector)
fi
only=${ONLY:-}

# screen WxH starts an X server of that size (stopping the last one);
# Xvfb picks a free display and writes its number on fd 3 once ready;
# -noreset keeps it from resetting when its last client (an xwininfo
# poll) leaves, which closes a connection the app opens at that moment.
screen() {
  [ -n "$xvfb" ] && { kill "$xvfb" 2>/dev/null; wait "$xvfb" 2>/dev/null || true; }
  : >"$work/display"
  Xvfb -displayfd 3 -screen 0 "$1x24" -nolisten tcp -noreset 3>"$work/display" >"$work/xvfb.log" 2>&1 &
  xvfb=$!
  for _ in $(seq 100); do
    [ "$(wc -l <"$work/display")" -ge 1 ] && break
    kill -0 "$xvfb" 2>/dev/null || break
    sleep 0.1
  done
  local n
  n=$(head -n1 "$work/display")
  [ -n "$n" ] || { echo "screenshot.sh: Xvfb did not start: $(cat "$work/xvfb.log")" >&2; exit 1; }
  export DISPLAY=":$n"
}

# shoot OUT AT ARGS... runs the app with ARGS, photographs its window AT
# seconds after it appears, and writes OUT (a small PNG).
shoot() {
  local out=$1 at=$2
  shift 2
  LANG=en_US.UTF-8 "$bin" gui "$@" >"$work/app.log" 2>&1 &
  local app=$! id=
  for _ in $(seq 300); do # the window, not the whole screen
    id=$(xwininfo -root -tree 2>/dev/null | awk '/"Fanout Inspector/ { print $1; exit }')
    [ -n "$id" ] && break
    kill -0 "$app" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$id" ] || { echo "screenshot.sh: the window did not open for $out" >&2; cat "$work/app.log" >&2; exit 1; }
  sleep "$at"
  import -window "$id" "$work/shot.png"
  wait "$app" || { echo "screenshot.sh: the app failed while drawing $out" >&2; cat "$work/app.log" >&2; exit 1; }
  mkdir -p "$(dirname "$out")"
  convert "$work/shot.png" -strip -define png:compression-level=9 "$out"
  echo "wrote ${out#"$root"/} ($(identify -format '%wx%h' "$out"))"
}

want() { [ -z "$only" ] || [ "$only" = "$1" ]; }

if want hero; then
  screen 1600x1000
  shoot "$root/docs/screenshot.png" 3 --autorun --exit-after 10s \
    --dispatch bounded:3 --latency 1s --args '{"n":12,"kind":"sampling"}'
fi

if want compare; then
  # two recordings to compare, made headless
  "$bin" run --dispatch serial --latency 300ms --args '{"n":5,"kind":"sampling"}' --record "$work/serial.json" >/dev/null
  "$bin" run --dispatch concurrent --latency 300ms --args '{"n":5,"kind":"sampling"}' --record "$work/concurrent.json" >/dev/null
fi

if want network; then
  "$bin" demo-server --http 127.0.0.1:0 >"$work/demo.out" 2>"$work/demo.err" &
  demo=$!
  trap 'kill "$demo" 2>/dev/null; cleanup' EXIT
  for _ in $(seq 100); do
    [ -s "$work/demo.out" ] && break
    sleep 0.1
  done
  demo_url=$(head -n1 "$work/demo.out")
  [ -n "$demo_url" ] || { echo "screenshot.sh: the demo server did not start: $(cat "$work/demo.err")" >&2; exit 1; }
fi

for size in 1400x900 1024x700; do
  screen "$size"
  if want first-run; then
    shoot "$root/docs/gui/first-run-$size.png" 2 --exit-after 5s
  fi
  if want load; then
    shoot "$root/docs/gui/load-$size.png" 10 --autorun --exit-after 13s \
      --tool echo --calls 3000 --concurrency 50 --latency 0 \
      --assert 'call_ms.p95<=50' --assert 'tool_calls.failed==0'
  fi
  if want rounds; then
    shoot "$root/docs/gui/rounds-$size.png" 4 --autorun --exit-after 7s \
      --protocol latest --dispatch concurrent --latency 300ms --args '{"n":3,"rounds":3,"kind":"sampling"}'
  fi
  if want compare; then
    shoot "$root/docs/gui/compare-$size.png" 3 --exit-after 6s \
      --open "$work/serial.json" --compare "$work/concurrent.json"
  fi
done

# the panels, at the larger size
screen 1400x900
if want protocol; then
  shoot "$root/docs/gui/panel-protocol-1400x900.png" 4 --autorun --exit-after 7s --tab protocol \
    --protocol latest --dispatch concurrent --latency 300ms --args '{"n":3,"rounds":3,"kind":"sampling"}'
fi
if want logs; then
  shoot "$root/docs/gui/panel-logs-1400x900.png" 4 --autorun --exit-after 7s --tab logs --log-level debug \
    --tool slow --args '{"ms":1000}'
fi
if want network; then
  shoot "$root/docs/gui/panel-network-1400x900.png" 4 --autorun --exit-after 7s --tab network \
    --url "$demo_url" --tool fanout --latency 300ms --args '{"n":5,"kind":"sampling"}'
fi
if want resources; then
  shoot "$root/docs/gui/panel-resources-1400x900.png" 3 --exit-after 6s --tab resources
fi
if want prompts; then
  shoot "$root/docs/gui/panel-prompts-1400x900.png" 3 --exit-after 6s --tab prompts
fi
