#!/usr/bin/env bash
# Installs every Debian 12 package that building, testing and demoing Reclaim needs, plus the
# pinned npm packages of the reference application. Idempotent: a no-op when all is present.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

packages=(
  build-essential cmake pkg-config ninja-build
  qt6-base-dev qt6-base-dev-tools libqt6sql6-psql libgl1-mesa-dev
  qt6-charts-dev qt6-httpserver-dev qt6-websockets-dev libqt6opengl6-dev libxkbcommon-dev
  libhiredis-dev libpq-dev libspdlog-dev libfmt-dev
  redis-server redis-tools postgresql-15 postgresql-client-15 openssl
  iproute2 util-linux
  xvfb xauth x11-apps imagemagick fonts-dejavu-core
  nodejs
  prometheus
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing Debian packages: ${missing[*]}; run this script as root" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # Installed packages must not start system-wide services: the sandbox runs private ones.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v npm >/dev/null 2>&1; then
  echo "setup: npm not found; Node.js 20 with npm is required for the reference application" >&2
  exit 1
fi

# An npm project pinned by its package-lock.json, installed once per lock file.
npm_ci() {
  local dir=$1
  [ -f "$dir/package-lock.json" ] || return 0
  local stamp="$dir/node_modules/.reclaim-lock-stamp"
  if [ ! -f "$stamp" ] || ! cmp -s "$dir/package-lock.json" "$stamp"; then
    echo "setup: npm ci in ${dir#"$here"/}/"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$dir/package-lock.json" "$stamp"
  fi
}

# The reference application's bullmq producer/worker, and the latest bullmq of each major the
# layout tests run the same scenario against (refapp/bullmq-versions/v4, v5, v6).
npm_ci "$here/refapp"
for dir in "$here"/refapp/bullmq-versions/v*/; do
  npm_ci "${dir%/}"
done
echo "setup: all dependencies present"
