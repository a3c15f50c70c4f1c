#!/usr/bin/env bash
# gui-smoke.sh runs the real inspector binary (built with cgo, GLFW) on a
# virtual X display, three instances at once, each quit a different way:
#   - main: connects to the demo server, runs the fanout workload twice on
#     that one connection (bounded:3, then concurrent), and is quit with
#     SIGTERM once its journal shows the second run's result;
#   - sigint: quit with SIGINT (Ctrl-C) in the middle of a 5,000-call load
#     test, as soon as its journal shows the load test's calls;
#   - by-itself: quits by itself with --exit-after.
# It waits for events (a journal line, a non-blank screenshot), each
# polled with a deadline, never for a fixed time: on a loaded machine the
# window may take twenty seconds to show and draw a frame a second. It
# fails loudly unless, for each of the three,
#   - the app exits with status 0,
#   - the log has no "Error in Fyne call thread" (a widget touched off
#     the main goroutine), no panic and no "Fyne error" (the three share
#     one configuration folder: none may read another's half-written
#     preferences),
#   - the run's journal ends cleanly (its last line is the end record);
# and unless a screenshot of the window is not blank, main's journal
# holds the sampling requests, and its statistics at the end describe its
# second run (concurrent, about one latency), not the whole session.
#
# Needs Xvfb, xwininfo, xprop and ImageMagick (import, identify). Environment:
#   INSPECTOR_BIN  use this binary instead of building one
#   SMOKE_OUT      folder for the screenshot and logs (default: a temp dir)
#   SMOKE_ARGS     extra flags for main's 'inspector gui'
#   SMOKE_WAIT     seconds to wait for each event before failing (default 180)
set -euo pipefail

smoke_name=gui-smoke smoke_log=main.log
# shellcheck source=scripts/smoke-lib.sh
source "$(dirname "$0")/smoke-lib.sh"

wait_s=${SMOKE_WAIT:-180}
exit_after=${SMOKE_EXIT_AFTER:-20s}

# start NAME ARGS...: start an instance that NAME names (its log at
# $out/NAME.log, its cache and journal under $out/NAME; the configuration
# folder is shared, as on one desktop) and leave its pid in $out/NAME.pid.
start() {
  local name=$1
  shift
  mkdir -p "$out/$name"
  XDG_CACHE_HOME="$out/$name/cache" XDG_CONFIG_HOME="$out/config" LANG=en_US.UTF-8 \
    "$bin" gui "$@" >"$out/$name.log" 2>&1 &
  echo "$!" >"$out/$name.pid"
}
# journal_of NAME: the path of the instance's journal, or "".
journal_of() { ls "$out/$1"/cache/fanout-inspector/journal/*.jsonl 2>/dev/null | head -1 || true; }
# running NAME: the instance has not exited.
running() { kill -0 "$(cat "$out/$1.pid")" 2>/dev/null; }
# await WHAT NAME CMD...: poll CMD every 0.2 s until it succeeds; fail
# saying WHAT after $wait_s seconds, or if the instance NAME exited.
await() {
  local what=$1 name=$2 deadline=$((SECONDS + wait_s))
  shift 2
  until "$@"; do
    running "$name" || fail "$name exited before $what (log: $out/$name.log)"
    ((SECONDS < deadline)) || fail "$name: no $what within ${wait_s}s (log: $out/$name.log)"
    sleep 0.2
  done
}
# calls_in NAME N: the instance's journal holds at least N tool calls
# answered ok (a span's last line carries its status).
calls_in() {
  local j
  j=$(journal_of "$1")
  [ -n "$j" ] && [ "$(grep '"method":"tools/call"' "$j" | grep -c '"status":"ok"')" -ge "$2" ]
}
# window_up NAME: the instance's window is on the display (a window whose
# _NET_WM_PID is the instance's; xwininfo in C.UTF-8, which every Debian
# has, to print the title's em dash).
window_up() {
  local pid id
  pid=$(cat "$out/$1.pid")
  for id in $(LC_ALL=C.UTF-8 xwininfo -root -tree 2>/dev/null | sed -n 's/^ *\(0x[0-9a-f]*\) "Fanout Inspector.*/\1/p'); do
    LC_ALL=C.UTF-8 xprop -id "$id" _NET_WM_PID 2>/dev/null | grep "= $pid\$" >/dev/null && return 0
  done
  return 1
}
# exits_within NAME: the instance exits within $wait_s seconds (then
# check_quit reads its status); a hung one is sent SIGQUIT, so that its
# log shows where each goroutine waits, and the script fails.
exits_within() {
  local name=$1 deadline=$((SECONDS + wait_s))
  while running "$name"; do
    if ((SECONDS >= deadline)); then
      kill -QUIT "$(cat "$out/$name.pid")" 2>/dev/null || true
      fail "$name: still running ${wait_s}s after it was told to quit (its goroutines are in $out/$name.log)"
    fi
    sleep 0.2
  done
}
# check_quit NAME: the instance NAME exited 0, with no off-thread widget
# call, no panic, no Fyne error, and a journal that ends with its end record.
check_quit() {
  local name=$1 pid rc journal
  smoke_log=$name.log # a failure shows this instance's log (Fyne names the off-thread call's caller)
  pid=$(cat "$out/$name.pid")
  set +e
  wait "$pid"
  rc=$?
  set -e
  [ "$rc" -eq 0 ] || fail "$name: the app exited with status $rc (log: $out/$name.log)"
  ! grep -q "Error in Fyne call thread" "$out/$name.log" || fail "$name: a widget was touched off the main goroutine (log: $out/$name.log)"
  ! grep -qi "panic" "$out/$name.log" || fail "$name: the app panicked (log: $out/$name.log)"
  ! grep -q "Fyne error" "$out/$name.log" || fail "$name: Fyne logged an error (log: $out/$name.log)"
  journal=$(journal_of "$name")
  [ -n "$journal" ] || fail "$name: no journal in $out/$name/cache/fanout-inspector/journal"
  tail -n 1 "$journal" | grep -q '^{"end":' || fail "$name: the journal $journal does not end cleanly"
  echo "gui-smoke: $name: exit 0, journal closed ($(wc -l <"$journal") lines)"
}

echo "gui-smoke: main: inspector gui --autorun --autorun-again concurrent on $DISPLAY, SIGTERM once its second run ended"
# shellcheck disable=SC2086
start main --autorun --autorun-again concurrent --stats-report --fps-report \
  --dispatch bounded:3 --latency 400ms --args '{"n":12,"kind":"sampling"}' ${SMOKE_ARGS:-}
echo "gui-smoke: sigint: SIGINT in the middle of a 5,000-call load test; by-itself: --exit-after $exit_after"
start sigint --autorun --tool echo --args '{"text":"load"}' --calls 5000 --concurrency 50
start by-itself --autorun --args '{"n":3,"kind":"sampling"}' --exit-after "$exit_after"

# Its window up, then its load test under way: Ctrl-C mid-run.
await "window" sigint window_up sigint
await "tool calls of the load test in its journal" sigint calls_in sigint 1
kill -INT "$(cat "$out/sigint.pid")"
await "second run's result in its journal" main calls_in main 2
await "non-blank screenshot" main drawn screenshot.png
kill -TERM "$(cat "$out/main.pid")"

exits_within main
check_quit main
exits_within sigint
check_quit sigint
# by-itself quits on its own, never signalled (but for a hang's SIGQUIT).
wait_s=$((wait_s + ${exit_after%s})) exits_within by-itself
check_quit by-itself

journal=$(journal_of main)
grep -q '"method":"sampling/createMessage"' "$journal" || fail "main: the journal $journal holds no sampling requests"

# Two runs on one connection: the stats describe the second, not both.
grep '^stats:' "$out/main.log" || fail "main printed no stats report (--stats-report)"
grep -q '^stats: describes "Run 2 · fanout · concurrent" of "Run 1 · fanout · bounded 3 | Run 2 · fanout · concurrent | Whole session"' "$out/main.log" ||
  fail "the stats do not describe the second run (Run 2, concurrent) with both runs in the picker"
stats=$(grep '^stats: verdict=' "$out/main.log")
case "$stats" in
  *"verdict=concurrent "*"provisional=false") ;;
  *) fail "the second run's verdict is not a final 'concurrent': $stats" ;;
esac
elapsed=$(sed -n 's/.*elapsed_ms=\([0-9]*\).*/\1/p' <<<"$stats")
calls=$(sed -n 's/.*tool_calls=\([0-9]*\).*/\1/p' <<<"$stats")
# The first run (12 requests, 3 at a time, 400 ms) alone takes 1.6 s, the
# second one latency: these bounds tell the two apart however late a
# busy machine serves the answers (up to 1.2 s of 400 ms).
[ "$elapsed" -ge 400 ] && [ "$elapsed" -lt 1600 ] || fail "elapsed ${elapsed} ms: not the second run's own (about 400 ms)"
[ "$calls" -eq 1 ] || fail "the stats count $calls tool calls: want the second run's one"
echo "gui-smoke: two runs: the stats describe the second (elapsed ${elapsed} ms, 1 tool call)"
grep '^fps:' "$out/main.log" || true
echo "gui-smoke: PASS (in ${SECONDS}s)"
