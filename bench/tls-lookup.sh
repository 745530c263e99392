#!/usr/bin/env bash
# The direct lookup over TLS against the same lookup over plain TCP, side by side in one run
# (issue 14): one redis-server listening on both a TCP and a TLS port (certificates made here
# with openssl), the bench's lookup fixture built through the TCP port, then `reclaim_bench
# lookup` over each port in turn, ROUNDS times, interleaved. Prints one JSON line with the
# medians and the ratio (target: TLS >= 0.6 x TCP). With BASELINE_BENCH set to another build's
# reclaim_bench (e.g. main's), its lookup over TCP is measured in the same rounds too, so a
# change of the plain TCP path shows as tcp vs baseline.
#
#   [BASELINE_BENCH=...] bench/tls-lookup.sh [BUILD_DIR=build] [WAIT=150000] [CANDIDATES=20000] [ROUNDS=3]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
wait_len=${2:-150000}
candidates=${3:-20000}
rounds=${4:-3}
bench="$build/bench/reclaim_bench"
[ -x "$bench" ] || { echo "tls-lookup: $bench not built" >&2; exit 1; }

dir=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ssl() { openssl "$@" >/dev/null 2>&1; }
ssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$dir/ca.key" \
  -out "$dir/ca.pem" -days 2 -subj "/CN=bench CA"
ssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$dir/server.key" \
  -out "$dir/server.csr" -subj "/CN=localhost"
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$dir/ext"
ssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -set_serial 1 \
  -days 2 -extfile "$dir/ext" -out "$dir/server.pem"

port=$(free_port)
tls_port=$(free_port)
redis-server --bind 127.0.0.1 --port "$port" --tls-port "$tls_port" --save "" --appendonly no \
  --dir "$dir" --logfile "$dir/redis.log" --tls-cert-file "$dir/server.pem" \
  --tls-key-file "$dir/server.key" --tls-ca-cert-file "$dir/ca.pem" --tls-auth-clients no &
pid=$!
for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done

node "$root/bench/workload/build.js" lookup --redis "redis://127.0.0.1:$port/0" \
  --candidates "$candidates" --wait "$wait_len" --ids "$dir/ids" --summary "$dir/summary.json" >&2

# The lookup reads no database; the loader still wants a PostgreSQL URL.
node -e '
const fs = require("fs");
const [sample, dir, port, tlsPort] = process.argv.slice(1);
const c = JSON.parse(fs.readFileSync(sample, "utf8"));
c.domains = c.domains.filter((d) => d.name === "image");
c.connections = { postgresUrl: "postgresql://bench@127.0.0.1/unused", redisUrl: `redis://127.0.0.1:${port}/0` };
fs.writeFileSync(`${dir}/tcp.json`, JSON.stringify(c));
c.connections.redisUrl = `rediss://127.0.0.1:${tlsPort}/0`;
c.connections.redisTls = { ca: `${dir}/ca.pem` };
fs.writeFileSync(`${dir}/tls.json`, JSON.stringify(c));
' "$root/resources/reclaim.sample.json" "$dir" "$port" "$tls_port"

for r in $(seq "$rounds"); do
  for mode in tcp tls; do
    env -u RECLAIM_REDIS_URL -u RECLAIM_PG_URL "$bench" lookup --config "$dir/$mode.json" \
      --ids "$dir/ids" --reps 5 | sed "s/^/$mode /" >>"$dir/samples"
  done
  if [ -n "${BASELINE_BENCH:-}" ]; then
    env -u RECLAIM_REDIS_URL -u RECLAIM_PG_URL "$BASELINE_BENCH" lookup --config "$dir/tcp.json" \
      --ids "$dir/ids" --reps 5 | sed "s/^/base /" >>"$dir/samples"
  fi
done

node -e '
const fs = require("fs");
const lines = fs.readFileSync(process.argv[1], "utf8").trim().split("\n");
const by = { tcp: [], tls: [], base: [] };
for (const l of lines) { const i = l.indexOf(" "); by[l.slice(0, i)].push(JSON.parse(l.slice(i + 1))); }
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
const tcp = med(by.tcp.map((x) => x.candidatesPerSecond));
const tls = med(by.tls.map((x) => x.candidatesPerSecond));
console.log(JSON.stringify({ measure: "lookup-tls-vs-tcp", waitLength: Number(process.argv[2]),
  candidates: by.tcp[0].candidates, rounds: by.tcp.length,
  tcpCandidatesPerSecond: Math.round(tcp), tlsCandidatesPerSecond: Math.round(tls),
  ratio: Number((tls / tcp).toFixed(3)), target: 0.6, met: tls / tcp >= 0.6,
  baselineTcpCandidatesPerSecond: by.base.length ? Math.round(med(by.base.map((x) => x.candidatesPerSecond))) : undefined,
  samples: { tcp: by.tcp.map((x) => Math.round(x.candidatesPerSecond)), tls: by.tls.map((x) => Math.round(x.candidatesPerSecond)),
  base: by.base.map((x) => Math.round(x.candidatesPerSecond)) } }));
' "$dir/samples" "$wait_len"
