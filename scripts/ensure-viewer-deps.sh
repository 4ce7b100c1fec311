#!/usr/bin/env bash
# Installs what `make test-viewers` needs, when it is missing:
#   - Debian packages: chromium (the browser playwright-core drives; no browser
#     is ever downloaded), nodejs and npm;
#   - the npm packages of tests/viewers (playwright-core, speedscope,
#     @paulirish/trace_engine), exactly as pinned in its package-lock.json.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
viewers="$root/tests/viewers"

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
updated=0
apt_install() {
  echo "ludus: installing missing Debian packages: $*"
  if [ "$updated" -eq 0 ]; then
    $SUDO apt-get update -qq || echo "ludus: apt-get update failed; trying the package lists there are"
    updated=1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v node >/dev/null || need+=(nodejs)
[ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"
# Some nodejs builds ship npm themselves; Debian's own nodejs does not.
command -v npm >/dev/null || apt_install npm

major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 20 ]; then
  echo "ludus: warning: node $(node --version) is older than 20, which playwright-core requires" >&2
fi

# npm ci from the committed lock file, unless node_modules already holds
# exactly that lock file's packages. Install scripts are not run (none of these
# packages needs one, and none may download anything, a browser least of all).
stamp="$viewers/node_modules/.ludus-package-lock.json"
if ! cmp -s "$viewers/package-lock.json" "$stamp" 2>/dev/null; then
  echo "ludus: installing npm packages of tests/viewers (npm ci)"
  (cd "$viewers" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
  cp "$viewers/package-lock.json" "$stamp"
fi
