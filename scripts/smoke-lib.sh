# smoke-lib.sh is sourced by the GUI smoke scripts: it finds the tools,
# builds the inspector (unless INSPECTOR_BIN names one), starts Xvfb on a
# free display (Xvfb picks it) and exports DISPLAY.
# Before sourcing it, a script sets smoke_name (its name in messages) and
# smoke_log (the app's log file under $out, shown when it fails). After
# it: root, out, bin, fail, drawn; when the script exits, an app it left
# running is stopped, then Xvfb.

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${SMOKE_OUT:-$(mktemp -d)}
mkdir -p "$out"
fail() { echo "$smoke_name: FAIL: $*" >&2; [ -f "$out/$smoke_log" ] && sed 's/^/  app: /' "$out/$smoke_log" >&2; exit 1; }
# drawn FILE: a screenshot of the display is not blank (more than 64
# colours, standard deviation over 0.05); it is kept as $out/FILE.
drawn() {
  import -window root "$out/shot.png" 2>/dev/null || return 1
  local colours stddev
  colours=$(identify -format '%k' "$out/shot.png")
  stddev=$(identify -format '%[fx:standard_deviation]' "$out/shot.png")
  awk -v s="$stddev" -v c="$colours" 'BEGIN { exit !(s > 0.05 && c > 64) }' || return 1
  mv "$out/shot.png" "$out/$1"
  echo "$smoke_name: screenshot $out/$1: $colours colours, standard deviation $stddev"
}

for tool in Xvfb import identify xwininfo xprop; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (apt-get install xvfb x11-utils imagemagick)"
done

bin=${INSPECTOR_BIN:-}
if [ -z "$bin" ]; then
  bin="$out/inspector"
  echo "$smoke_name: building the inspector with cgo"
  (cd "$root" && CGO_ENABLED=1 go build -o "$bin" ./cmd/inspector) || fail "the build failed"
fi

# A free display, chosen by Xvfb itself: with -displayfd it takes the first
# display it can lock and, once it accepts connections, writes the number
# on fd 3. Two scripts or tests starting at once never share one (picking a
# number by looking for lock files raced), and a lock left by a killed
# server is taken over. Killed with SIGTERM, Xvfb removes its lock.
# -noreset: by default an X server resets when its last client leaves, and
# closes every connection it accepted meanwhile. Here clients come and go
# all the time (each xwininfo, xprop and import is one), so an app starting
# at such a moment was refused ("Failed to open display"). In loops of
# three xwininfo at once, 15 of 1,200 connections were refused without
# -noreset and none of 1,080 with it.
Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp -noreset 3>"$out/$smoke_name-display" >"$out/$smoke_name-xvfb.log" 2>&1 &
xvfb=$!
# stop_all, on exit: an app the script started and that still runs (the
# script failed before it quit) is sent SIGTERM and given 20 s (then
# SIGKILL), and only then is Xvfb stopped (10 s, then SIGKILL), so that
# nothing is still writing under $out when the caller removes it.
stop_all() {
  local pids
  pids=$(jobs -p | grep -vx "$xvfb" || true)
  # shellcheck disable=SC2086
  [ -z "$pids" ] || stop_within 20 $pids
  stop_within 10 "$xvfb"
}
# stop_within S PID...: SIGTERM to each, SIGKILL to those still running
# S seconds later.
stop_within() {
  local p deadline=$((SECONDS + $1))
  shift
  kill -TERM "$@" 2>/dev/null || true
  for p in "$@"; do
    while kill -0 "$p" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
}
trap stop_all EXIT
for _ in $(seq 100); do
  [ "$(wc -l <"$out/$smoke_name-display")" -ge 1 ] && break
  kill -0 "$xvfb" 2>/dev/null || break
  sleep 0.1
done
n=$(head -n1 "$out/$smoke_name-display")
[ -n "$n" ] || fail "Xvfb did not start ($(cat "$out/$smoke_name-xvfb.log"))"
export DISPLAY=":$n"
