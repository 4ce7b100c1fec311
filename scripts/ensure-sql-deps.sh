#!/usr/bin/env bash
# Installs what the sql test's DuckDB read-back needs (tests/sql/check_duckdb.mjs),
# when it is missing: nodejs and npm (Debian), and tests/sql's npm package
# @duckdb/node-api, exactly as pinned in its package-lock.json (its binary
# ships inside the registry package; install scripts are not run).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/tests/sql"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
need=()
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
  echo "ludus: installing missing Debian packages: ${need[*]}"
  $SUDO apt-get update -qq || echo "ludus: apt-get update failed; trying the package lists there are"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
stamp="$dir/node_modules/.ludus-package-lock.json"
if ! cmp -s "$dir/package-lock.json" "$stamp" 2>/dev/null; then
  echo "ludus: installing npm packages of tests/sql (npm ci)"
  (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
  cp "$dir/package-lock.json" "$stamp"
fi
