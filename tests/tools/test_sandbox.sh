#!/usr/bin/env bash
# The sandbox starts private servers on loopback, hands their URLs to the command, passes its
# exit code through, and leaves no process or directory behind — on normal exit, on a failing
# command, on SIGTERM, and through start/stop.
set -uo pipefail
sandbox="$1"
failures=0
passes=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "PASS: $*"; passes=$((passes + 1)); }

leftovers() { # $1: sandbox dir
  [ -e "$1" ] && echo "directory $1 still exists"
  pgrep -f -- "$1" >/dev/null 2>&1 && echo "processes still running for $1: $(pgrep -af -- "$1")"
  true
}

# 1. run: URLs exported, servers answer on loopback, exit code passed through, all removed.
out=$(mktemp)
"$sandbox" run -- bash -c '
  echo "dir=$RECLAIM_SANDBOX_DIR"
  psql "$RECLAIM_PG_URL" -tAc "select 42" | grep -qx 42 && echo pg=ok
  redis-cli -u "$RECLAIM_REDIS_URL" ping | grep -qx PONG && echo redis=ok
  ss -ltn | grep -E ":($RECLAIM_SANDBOX_PG_PORT|$RECLAIM_SANDBOX_REDIS_PORT)\b" | grep -v "127.0.0.1:" && echo nonloopback=yes
  exit 7' >"$out" 2>&1
rc=$?
dir=$(sed -n 's/^dir=//p' "$out")
[ $rc -eq 7 ] && pass "exit code passed through" || fail "exit code $rc, expected 7"
grep -q pg=ok "$out" && pass "PostgreSQL answers" || fail "PostgreSQL did not answer: $(cat "$out")"
grep -q redis=ok "$out" && pass "Redis answers" || fail "Redis did not answer"
grep -q nonloopback=yes "$out" && fail "a server listens beyond loopback" || pass "loopback only"
[ -n "$dir" ] && [ -z "$(leftovers "$dir")" ] && pass "run cleans up" || fail "run left: $(leftovers "$dir")"

# 2. up: stopped by SIGTERM, still cleans up.
log=$(mktemp)
"$sandbox" up >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q "running; Ctrl-C" "$log" && break; sleep 0.2; done
dir=$(sed -n 's/^RECLAIM_SANDBOX_DIR=.\(.*\).$/\1/p' "$log")
[ -d "$dir" ] && pass "up prints its URLs" || fail "up did not start: $(cat "$log")"
kill -TERM $pid
wait $pid
[ -n "$dir" ] && [ -z "$(leftovers "$dir")" ] && pass "SIGTERM cleans up" || fail "SIGTERM left: $(leftovers "$dir")"

# 3. start/stop with an env file (what the CTest fixture uses).
envf=$(mktemp -u)
"$sandbox" start --env-file "$envf" >/dev/null
dir=$(sed -n "s/^export RECLAIM_SANDBOX_DIR='\(.*\)'$/\1/p" "$envf")
[ -d "$dir" ] && pass "start writes the env file" || fail "start did not start"
"$sandbox" stop --env-file "$envf" >/dev/null
[ -n "$dir" ] && [ -z "$(leftovers "$dir")" ] && [ ! -e "$envf" ] && pass "stop cleans up" || fail "stop left: $(leftovers "$dir")"

# 4. bad usage: one clear line, non-zero exit.
msg=$("$sandbox" frobnicate 2>&1); rc=$?
[ $rc -ne 0 ] && echo "$msg" | grep -q "unknown command 'frobnicate'" && pass "bad usage is refused" || fail "bad usage: rc=$rc $msg"

echo "$passes passed, $failures failed"
[ $failures -eq 0 ]
