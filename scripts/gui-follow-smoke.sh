#!/usr/bin/env bash
# gui-follow-smoke.sh: the GUI follows a proxy session live. On a virtual X
# display it starts 'inspector gui --follow FILE' first (the journal does
# not exist yet: the app waits for it), then a client through the proxy:
#   inspector run --stdio "inspector proxy --stdio 'inspector demo-server' --journal FILE"
#     --tool fanout --dispatch serial --latency 500ms --protocol 2025-11-25
# (a serial client: five sampling requests answered one at a time; 500 ms
# each, so that the proxy's estimate of the work has 50 ms of slack for a
# loaded machine's jitter between answers). It
# fails loudly unless
#   - the app exits 0 by itself, with no widget touched off the main
#     goroutine and no panic,
#   - the app drew the journal as it grew: its "follow:" line lists the
#     ended spans of the frames drawn, and at least four different counts
#     were seen before the journal ended (not one frame at the end),
#   - the follow stopped because the journal ended, and the final stats
#     say serialized, with 5 server requests, peak in flight 1,
#   - a screenshot taken while the client ran is not blank.
#
# Needs Xvfb and ImageMagick (import, identify). Environment:
#   INSPECTOR_BIN  use this binary instead of building one
#   SMOKE_OUT      folder for the screenshot and logs (default: a temp dir)
#   SMOKE_DISPLAY  X display number to try first (default 99)
set -euo pipefail

smoke_name=gui-follow-smoke smoke_log=follow-app.log
# shellcheck source=scripts/smoke-lib.sh
source "$(dirname "$0")/smoke-lib.sh"
export LANG=en_US.UTF-8

journal="$out/proxy-session.jsonl"
rm -f "$journal"
echo "gui-follow-smoke: inspector gui --follow $journal (before the journal exists)"
XDG_CACHE_HOME="$out/follow-cache" XDG_CONFIG_HOME="$out/follow-config" \
  "$bin" gui --follow "$journal" --stats-report --exit-after 9s >"$out/follow-app.log" 2>&1 &
app=$!
sleep 1.5

proxy="$bin proxy --stdio '$bin demo-server' --journal $journal"
echo "gui-follow-smoke: a serial client through the proxy: 5 sampling requests × 500 ms"
"$bin" run --stdio "$proxy" --tool fanout --dispatch serial --latency 500ms --protocol 2025-11-25 \
  >"$out/follow-client.log" 2>&1 &
client=$!
sleep 1.2
import -window root "$out/follow-screenshot.png" || fail "import could not take a screenshot"
wait "$client" || fail "the client failed (log: $out/follow-client.log)"

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
counts=$(tr ',' '\n' <<<"$seen" | grep -c .)
[ "$counts" -ge 4 ] || fail "the app saw only $counts different states of the journal ($seen): it did not draw it as it grew"
grep -q 'state="the journal ended"' <<<"$line" || fail "the follow did not stop at the journal's end: $line"
grep -q 'server_requests=5 peak=1' <<<"$line" || fail "the followed session does not show 5 server requests at peak 1: $line"
stats=$(grep '^stats: verdict=' "$out/follow-app.log") || fail "no stats line"
case "$stats" in
  *"verdict=serialized "*) ;;
  *) fail "the followed serial client is not called serialized: $stats" ;;
esac
echo "gui-follow-smoke: $stats"

colours=$(identify -format '%k' "$out/follow-screenshot.png")
stddev=$(identify -format '%[fx:standard_deviation]' "$out/follow-screenshot.png")
awk -v s="$stddev" 'BEGIN { exit !(s > 0.05) }' || fail "the screenshot is blank (standard deviation $stddev)"
[ "$colours" -gt 64 ] || fail "the screenshot has only $colours colours: the window did not draw"
echo "gui-follow-smoke: screenshot $out/follow-screenshot.png: $colours colours"
echo "gui-follow-smoke: PASS (the journal grew in $counts steps: $seen)"
