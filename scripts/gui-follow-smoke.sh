#!/usr/bin/env bash
# gui-follow-smoke.sh: the GUI follows a proxy session live. On a virtual X
# display it starts 'inspector gui --follow FILE' first and waits until the
# window's title says it is waiting for the journal to appear; then it
# runs a client through the proxy:
#   inspector run --stdio "inspector proxy --stdio 'inspector demo-server' --journal FILE"
#     --tool fanout --dispatch serial --latency 1s --protocol 2025-11-25
# (a serial client: five sampling requests answered one at a time, a
# second each: long enough for an app drawing one frame a second on a
# loaded machine to see the journal grow). Once the title says the journal
# ended, it quits the app with SIGTERM. Every wait is for an event (the
# window title, a non-blank screenshot), polled with a deadline. It
# fails loudly unless
#   - the app exits 0, with no widget touched off the main goroutine and
#     no panic,
#   - the app drew the journal as it grew: its "follow:" line lists the
#     ended spans of the frames drawn, and at least three different
#     counts were seen (not one frame at the end),
#   - the follow stopped because the journal ended, and the final stats
#     say serialized, with 5 server requests, peak in flight 1,
#   - a screenshot of the window is not blank.
#
# Needs Xvfb, xwininfo and ImageMagick (import, identify). Environment:
#   INSPECTOR_BIN  use this binary instead of building one
#   SMOKE_OUT      folder for the screenshot and logs (default: a temp dir)
#   SMOKE_WAIT     seconds to wait for each event before failing (default 180)
set -euo pipefail

smoke_name=gui-follow-smoke smoke_log=follow-app.log
# shellcheck source=scripts/smoke-lib.sh
source "$(dirname "$0")/smoke-lib.sh"
export LANG=en_US.UTF-8
wait_s=${SMOKE_WAIT:-180}

journal="$out/proxy-session.jsonl"
rm -f "$journal"
echo "gui-follow-smoke: inspector gui --follow $journal (before the journal exists)"
XDG_CACHE_HOME="$out/follow-cache" XDG_CONFIG_HOME="$out/follow-config" \
  "$bin" gui --follow "$journal" --stats-report >"$out/follow-app.log" 2>&1 &
app=$!

# titled TEXT: a window on the display has TEXT in its title. xwininfo runs
# in C.UTF-8, which every Debian has: the title holds an em dash, and
# in a locale that is not installed (make exports en_US.UTF-8) it cannot
# print it.
titled() { LC_ALL=C.UTF-8 xwininfo -root -tree 2>/dev/null | grep -F "$1" >/dev/null; }
# await WHAT CMD...: poll CMD every 0.2 s until it succeeds; fail saying
# WHAT after $wait_s seconds, or if the app exited.
await() {
  local what=$1 deadline=$((SECONDS + wait_s))
  shift
  until "$@"; do
    kill -0 "$app" 2>/dev/null || fail "the app exited before $what"
    ((SECONDS < deadline)) || fail "no $what within ${wait_s}s"
    sleep 0.2
  done
}

await "window title saying it waits for the journal" titled "(waiting for it to appear)"

proxy="$bin proxy --stdio '$bin demo-server' --journal $journal"
echo "gui-follow-smoke: a serial client through the proxy: 5 sampling requests × 1 s"
"$bin" run --stdio "$proxy" --tool fanout --dispatch serial --latency 1s --protocol 2025-11-25 \
  >"$out/follow-client.log" 2>&1 &
client=$!
await "non-blank screenshot" drawn follow-screenshot.png
wait "$client" || fail "the client failed (log: $out/follow-client.log)"
await "window title saying the journal ended" titled "(the journal ended)"
kill -TERM "$app"

set +e
wait "$app"
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "the app exited with status $rc"
! grep -q "Error in Fyne call thread" "$out/follow-app.log" || fail "a widget was touched off the main goroutine"
! grep -qi "panic" "$out/follow-app.log" || fail "the app panicked"

line=$(grep '^follow: ' "$out/follow-app.log") || fail "the app printed no follow: line (--stats-report while following)"
echo "gui-follow-smoke: $line"
seen=$(sed -n 's/.*ended_spans_seen=\([0-9,]*\).*/\1/p' <<<"$line")
counts=$(tr ',' '\n' <<<"$seen" | sort -u | grep -c .)
[ "$counts" -ge 3 ] || fail "the app saw only $counts different states of the journal ($seen): it did not draw it as it grew"
grep -q 'state="the journal ended"' <<<"$line" || fail "the follow did not stop at the journal's end: $line"
grep -q 'server_requests=5 peak=1' <<<"$line" || fail "the followed session does not show 5 server requests at peak 1: $line"
stats=$(grep '^stats: verdict=' "$out/follow-app.log") || fail "no stats line"
case "$stats" in
  *"verdict=serialized "*) ;;
  *) fail "the followed serial client is not called serialized: $stats" ;;
esac
echo "gui-follow-smoke: $stats"
echo "gui-follow-smoke: PASS (the journal grew in $counts steps: $seen; ${SECONDS}s)"
