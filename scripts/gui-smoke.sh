#!/usr/bin/env bash
# gui-smoke.sh runs the real inspector binary (built with cgo, GLFW) on a
# virtual X display: it opens the window, connects to the demo server,
# runs the fanout workload twice on that one connection (bounded:3, then
# concurrent), and quits by itself. Beside it, two more
# instances are quit as a person in a terminal would: one with SIGINT
# (Ctrl-C) in the middle of a 5,000-call load test, one with SIGTERM after
# its run ended. It fails loudly unless, for each of the three,
#   - the app exits with status 0 (within its --exit-after time),
#   - the log has no "Error in Fyne call thread" (a widget touched off
#     the main goroutine), no panic and no "Fyne error" (the three share
#     one configuration folder: none may read another's half-written
#     preferences),
#   - the run's journal ends cleanly (its last line is the end record);
# and unless a screenshot taken mid-run is not blank, the first
# instance's journal holds the sampling requests, and its statistics at
# the end describe its second run (concurrent, about one latency), not
# the whole session.
#
# Needs Xvfb and ImageMagick (import, identify). Environment:
#   INSPECTOR_BIN  use this binary instead of building one
#   SMOKE_OUT      folder for the screenshot and log (default: a temp dir)
#   SMOKE_DISPLAY  X display number to try first (default 99)
#   SMOKE_ARGS     extra flags for 'inspector gui'
set -euo pipefail

smoke_name=gui-smoke smoke_log=app.log
# shellcheck source=scripts/smoke-lib.sh
source "$(dirname "$0")/smoke-lib.sh"

exit_after=${SMOKE_EXIT_AFTER:-10s}
shot_at=${SMOKE_SHOT_AT:-5}
echo "gui-smoke: inspector gui --autorun --autorun-again concurrent --exit-after $exit_after on $DISPLAY"
start=$(date +%s)
# shellcheck disable=SC2086
XDG_CACHE_HOME="$out/cache" XDG_CONFIG_HOME="$out/config" LANG=en_US.UTF-8 "$bin" gui --autorun --autorun-again concurrent --stats-report --exit-after "$exit_after" --fps-report \
  --dispatch bounded:3 --latency 400ms --args '{"n":12,"kind":"sampling"}' ${SMOKE_ARGS:-} \
  >"$out/app.log" 2>&1 &
app=$!

# quit_by SIGNAL AFTER NAME ARGS...: start an instance that NAME names
# (its log and cache under $out/NAME; the configuration folder is shared,
# as on one desktop), send it SIGNAL after AFTER seconds, and leave its pid
# in the file $out/NAME.pid.
quit_by() {
  local sig=$1 after=$2 name=$3
  shift 3
  mkdir -p "$out/$name"
  XDG_CACHE_HOME="$out/$name/cache" XDG_CONFIG_HOME="$out/config" LANG=en_US.UTF-8 \
    "$bin" gui --autorun "$@" >"$out/$name.log" 2>&1 &
  local pid=$!
  echo "$pid" >"$out/$name.pid"
  (sleep "$after"; kill -s "$sig" "$pid" 2>/dev/null || true) &
}
# check_quit NAME: the instance NAME exited 0, with no off-thread widget
# call, no panic, and a journal that ends with its end record.
check_quit() {
  local name=$1 pid rc journal
  pid=$(cat "$out/$name.pid")
  set +e
  wait "$pid"
  rc=$?
  set -e
  [ "$rc" -eq 0 ] || fail "$name: the app exited with status $rc (log: $out/$name.log)"
  ! grep -q "Error in Fyne call thread" "$out/$name.log" || fail "$name: a widget was touched off the main goroutine (log: $out/$name.log)"
  ! grep -qi "panic" "$out/$name.log" || fail "$name: the app panicked (log: $out/$name.log)"
  ! grep -q "Fyne error" "$out/$name.log" || fail "$name: Fyne logged an error (log: $out/$name.log)"
  journal=$(ls "$out/$name"/cache/fanout-inspector/journal/*.jsonl 2>/dev/null | head -1)
  [ -n "$journal" ] || fail "$name: no journal in $out/$name/cache/fanout-inspector/journal"
  tail -n 1 "$journal" | grep -q '^{"end":' || fail "$name: the journal $journal does not end cleanly"
  echo "gui-smoke: $name: exit 0, journal closed ($(wc -l <"$journal") lines)"
}
sigint_at=${SMOKE_SIGINT_AT:-4}
sigterm_at=${SMOKE_SIGTERM_AT:-5}
echo "gui-smoke: SIGINT after ${sigint_at}s to a 5,000-call load test; SIGTERM after ${sigterm_at}s to an instance whose run ended"
quit_by INT "$sigint_at" sigint --tool echo --args '{"text":"load"}' --calls 5000 --concurrency 50
quit_by TERM "$sigterm_at" sigterm --args '{"n":3,"kind":"sampling"}'

sleep "$shot_at"
kill -0 "$app" 2>/dev/null || fail "the app quit before the screenshot"
import -window root "$out/screenshot.png" || fail "import could not take a screenshot"

set +e
wait "$app"
rc=$?
set -e
took=$(( $(date +%s) - start ))
[ "$rc" -eq 0 ] || fail "the app exited with status $rc"
limit=$(( ${exit_after%s} + 15 ))
[ "$took" -le "$limit" ] || fail "the app took ${took}s to quit (--exit-after $exit_after)"
if grep -q "Error in Fyne call thread" "$out/app.log"; then
  fail "a widget was touched off the main goroutine (see the log)"
fi
! grep -qi "panic" "$out/app.log" || fail "the app panicked (see the log)"
# Three instances share one configuration folder: none may catch another's
# settings half-written, nor log any other Fyne error.
! grep -q "Fyne error" "$out/app.log" || fail "Fyne logged an error (see the log)"

journal=$(ls "$out"/cache/fanout-inspector/journal/*.jsonl 2>/dev/null | head -1)
[ -n "$journal" ] || fail "the run left no journal in $out/cache/fanout-inspector/journal"
tail -n 1 "$journal" | grep -q '^{"end":' || fail "the journal $journal does not end cleanly"
grep -q '"method":"sampling/createMessage"' "$journal" || fail "the journal $journal holds no sampling requests"

# Two runs on one connection: the stats describe the second, not both.
grep '^stats:' "$out/app.log" || fail "the app printed no stats report (--stats-report)"
grep -q '^stats: describes "Run 2 · fanout · concurrent" of "Run 1 · fanout · bounded 3 | Run 2 · fanout · concurrent | Whole session"' "$out/app.log" ||
  fail "the stats do not describe the second run (Run 2, concurrent) with both runs in the picker"
stats=$(grep '^stats: verdict=' "$out/app.log")
case "$stats" in
  *"verdict=concurrent "*"provisional=false") ;;
  *) fail "the second run's verdict is not a final 'concurrent': $stats" ;;
esac
elapsed=$(sed -n 's/.*elapsed_ms=\([0-9]*\).*/\1/p' <<<"$stats")
calls=$(sed -n 's/.*tool_calls=\([0-9]*\).*/\1/p' <<<"$stats")
# the first run (12 requests, 3 at a time, 400 ms) alone took 1.6 s; the
# second, one latency
[ "$elapsed" -lt 1200 ] || fail "elapsed ${elapsed} ms: not the second run's own (about 400 ms)"
[ "$calls" -eq 1 ] || fail "the stats count $calls tool calls: want the second run's one"
echo "gui-smoke: two runs: the stats describe the second (elapsed ${elapsed} ms, 1 tool call)"

check_quit sigint
check_quit sigterm

colours=$(identify -format '%k' "$out/screenshot.png")
stddev=$(identify -format '%[fx:standard_deviation]' "$out/screenshot.png")
echo "gui-smoke: screenshot $out/screenshot.png: $colours colours, standard deviation $stddev"
awk -v s="$stddev" 'BEGIN { exit !(s > 0.05) }' || fail "the screenshot is blank (standard deviation $stddev)"
[ "$colours" -gt 64 ] || fail "the screenshot has only $colours colours: the window did not draw"
grep '^fps:' "$out/app.log" || true
echo "gui-smoke: PASS (exit 0 after ${took}s)"
