#!/usr/bin/env bash
# Prepare this checkout to run: system packages (apt-get, only when missing), the .venv, and the project
# installed into it in editable mode. Safe to run again: it does nothing when everything is in place.
# Usage: scripts/setup.sh [--with-browser]   (--with-browser also installs what the tests drive: Debian's
# chromium and shellcheck, axe-core from the npm registry into build/axe for the accessibility checks, and
# the tournament hub's redis-server and nginx, which the tests start themselves on free loopback ports:
# their system services are disabled when this script installed them). It then compiles the rules engine
# with mypyc (scripts/build_rules.py: gcc and the Python headers; a few minutes, only when rules/kipukas
# changed since the last build; without them the interpreted engine runs, the same games ~2x slower a step)
set -euo pipefail
cd "$(dirname "$0")/.."

want_browser=0
[ "${1:-}" = "--with-browser" ] && want_browser=1

missing=()
have_lib() { ldconfig -p 2>/dev/null | grep -q "$1"; }
have_lib 'libzbar\.so\.0' || missing+=(libzbar0)
python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
command -v gcc >/dev/null || missing+=(gcc)
python3 -c 'import os, sysconfig; assert os.path.isfile(sysconfig.get_paths()["include"] + "/Python.h")' 2>/dev/null \
    || missing+=(python3-dev)
[ "$want_browser" = 1 ] && [ ! -x /usr/bin/chromium ] && missing+=(chromium)
[ "$want_browser" = 1 ] && ! command -v shellcheck >/dev/null && missing+=(shellcheck)
hub_services=()
[ "$want_browser" = 1 ] && [ ! -x /usr/bin/redis-server ] && missing+=(redis-server) && hub_services+=(redis-server)
[ "$want_browser" = 1 ] && [ ! -x /usr/sbin/nginx ] && missing+=(nginx) && hub_services+=(nginx)
[ "$want_browser" = 1 ] && ! command -v npm >/dev/null && missing+=(npm)

if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup: installing system packages: ${missing[*]}"
    if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
        echo "setup: need root (or sudo) to apt-get install ${missing[*]}" >&2; exit 2
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # the tests run their own redis-server and nginx; do not leave Debian's default ones listening
    if [ "${#hub_services[@]}" -gt 0 ] && [ -d /run/systemd/system ]; then
        $sudo systemctl disable --now "${hub_services[@]}" >/dev/null 2>&1 || true
    fi
fi

AXE_VERSION=4.14.1
if [ "$want_browser" = 1 ] && [ ! -f build/axe/node_modules/axe-core/axe.min.js ]; then
    echo "setup: installing axe-core $AXE_VERSION into build/axe"
    npm install --silent --no-audit --no-fund --prefix build/axe "axe-core@$AXE_VERSION"
fi

stamp_want=$( (cat pyproject.toml scripts/setup.sh; python3 --version) | sha256sum | cut -c1-16)
if [ ! -x .venv/bin/python ] || [ "$(cat .venv/.setup-stamp 2>/dev/null)" != "$stamp_want" ]; then
    echo "setup: creating .venv and installing kipukas-tracker"
    python3 -m venv .venv
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e '.[dev,bench]'
    echo "$stamp_want" > .venv/.setup-stamp
fi

# the rules engine compiled with mypyc (does nothing when the build matches the sources; status 3, a warning
# and the interpreted engine when there is no C compiler)
.venv/bin/python scripts/build_rules.py || [ $? = 3 ]
