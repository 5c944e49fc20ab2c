#!/usr/bin/env bash
# Install (or upgrade in place) kipukas-tracker as a systemd service on Raspberry Pi OS Bookworm 64-bit.
#
#   sudo systemd/install.sh                 install or upgrade this checkout, then (re)start the service
#   systemd/install.sh --dry-run            print every command that would change something; change nothing
#   systemd/install.sh --root DIR           install into DIR as if it were / (a throwaway root for tests):
#                                           apt-get, useradd and the live systemctl calls are skipped and
#                                           printed, pip install too (it needs the network) and so the
#                                           build of the compiled rules engine (nothing to build), the rest is done
#   --python PATH     interpreter for the venv (default /usr/bin/python3: the one python3-picamera2 is built for)
#   --no-start        install and enable, but do not (re)start the service now
#
# What it does, each step skipped when already in place (so running it again changes nothing but the code):
#   1. apt-get installs the system packages: picamera2 and libcamera come from Raspberry Pi OS, not PyPI.
#   2. creates the system user `kipukas` (groups: kipukas, video) that the service runs as.
#   3. copies this checkout to /opt/kipukas-tracker (files that left the project are removed; .venv is kept).
#   4. creates /opt/kipukas-tracker/.venv with --system-site-packages (so it sees the system picamera2) and
#      pip-installs the project into it with systemd/pi-constraints.txt (numpy 1.x: the system's picamera2
#      stack is built against Bookworm's numpy 1.24 and breaks under numpy 2).
#   5. compiles the rules engine for the installed package with mypyc (scripts/build_rules.py --package, into
#      the venv's site-packages/kipukas_rules_native; mypy, pinned as in the dev extra, is pip-installed into
#      the venv for it); does nothing when the build matches the installed sources. A failure (no compiler,
#      no mypy wheel) is a warning: the service runs the interpreted engine, ~1.4x slower a step.
#   6. links /usr/local/bin/kipukas-tracker to the venv's command.
#   7. writes the commented default /etc/kipukas-tracker/table.toml only when there is none (yours is kept).
#   8. installs /etc/systemd/system/kipukas-tracker.service, reloads systemd, enables and (re)starts it.
set -euo pipefail
umask 022

readonly SERVICE=kipukas-tracker
readonly SERVICE_USER=kipukas
readonly PREFIX_REL=/opt/kipukas-tracker
readonly STATE_REL=/var/lib/kipukas-tracker
# gcc and python3-dev compile the rules engine (scripts/build_rules.py); the service runs without them.
readonly APT_PACKAGES=(python3-picamera2 python3-libcamera python3-venv libzbar0 gcc python3-dev)

usage() { sed -n '2,13s/^# \{0,1\}//p' "$0"; }

root=""
dry_run=0
python="/usr/bin/python3"
start=1
while [ "$#" -gt 0 ]; do
    case "$1" in
        --root) [ "$#" -ge 2 ] || { echo "install.sh: --root needs a folder" >&2; exit 2; }; root="$2"; shift 2 ;;
        --root=*) root="${1#--root=}"; shift ;;
        --dry-run) dry_run=1; shift ;;
        --python) [ "$#" -ge 2 ] || { echo "install.sh: --python needs a path" >&2; exit 2; }; python="$2"; shift 2 ;;
        --python=*) python="${1#--python=}"; shift ;;
        --no-start) start=0; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option: $1 (see --help)" >&2; exit 2 ;;
    esac
done

src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -n "$root" ]; then
    [ "$dry_run" = 1 ] || mkdir -p "$root"
    case "$root" in /*) ;; *) root="$(pwd)/$root" ;; esac
    root="${root%/}"
    [ -n "$root" ] || { echo "install.sh: --root / is the live system: leave --root out" >&2; exit 2; }
fi
prefix="$root$PREFIX_REL"
venv="$prefix/.venv"
conf_dir="$root/etc/$SERVICE"
unit_dir="$root/etc/systemd/system"
bin_link="$root/usr/local/bin/$SERVICE"

note() { echo "install: $*"; }
show() { printf '+'; printf ' %q' "$@"; printf '\n'; }
# A command that changes the installed tree: shown, and run unless --dry-run.
run() { show "$@"; [ "$dry_run" = 1 ] || "$@"; }
# A command that changes the live system (packages, users, the running systemd): not run under --root.
system() {
    if [ -n "$root" ]; then
        printf 'install: skipped (--root):'; printf ' %q' "$@"; printf '\n'
    else
        run "$@"
    fi
}

if [ -z "$root" ] && [ "$dry_run" = 0 ] && [ "$(id -u)" != 0 ]; then
    echo "install.sh: run it as root: sudo $0" >&2
    exit 2
fi
[ -x "$python" ] || { echo "install.sh: no Python at $python (use --python PATH)" >&2; exit 2; }
if [ ! -f "$src/pyproject.toml" ] || [ ! -f "$src/systemd/$SERVICE.service" ]; then
    echo "install.sh: $src is not a kipukas-tracker checkout" >&2
    exit 2
fi

check_platform() {
    [ -z "$root" ] || return 0
    local codename="" arch
    arch="$(uname -m)"
    # shellcheck disable=SC1091
    [ -r /etc/os-release ] && codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
    if [ "$codename" != bookworm ] || [ "$arch" != aarch64 ]; then
        note "warning: made for Raspberry Pi OS Bookworm 64-bit (aarch64); this is ${codename:-unknown} on $arch"
    fi
}

install_packages() {
    local missing=() pkg
    if [ -n "$root" ]; then
        system apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"
        return 0
    fi
    for pkg in "${APT_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
    done
    if [ "${#missing[@]}" -eq 0 ]; then
        note "system packages already installed: ${APT_PACKAGES[*]}"
        return 0
    fi
    system apt-get update
    system env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

create_user() {
    if [ -n "$root" ]; then
        system useradd --system --user-group --groups video --home-dir "$STATE_REL" --no-create-home \
            --shell /usr/sbin/nologin "$SERVICE_USER"
    elif ! getent passwd "$SERVICE_USER" >/dev/null; then
        system useradd --system --user-group --groups video --home-dir "$STATE_REL" --no-create-home \
            --shell /usr/sbin/nologin "$SERVICE_USER"
    elif ! id -nG "$SERVICE_USER" | tr ' ' '\n' | grep -qx video; then
        system usermod --append --groups video "$SERVICE_USER"
    else
        note "user $SERVICE_USER exists and is in the video group"
    fi
}

# The checkout's files: git's view when it is a git checkout (tracked and new, not ignored), else a walk
# that leaves out virtual environments, caches and build output.
project_files() {
    if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
        git -C "$src" ls-files -z --cached --others --exclude-standard
    else
        (cd "$src" && find . \( -name .git -o -name .venv -o -name __pycache__ -o -name '*.egg-info' \
            -o -name build -o -name test-artifacts -o -name '.*_cache' \) -prune -o -type f -printf '%P\0')
    fi
}

sync_project() {
    local f mode changed=0
    declare -A wanted=()
    while IFS= read -r -d '' f; do
        if [ ! -f "$src/$f" ] || [ -L "$src/$f" ]; then continue; fi  # deleted in the worktree, or a symlink
        wanted["$f"]=1
        mode=0644
        [ -x "$src/$f" ] && mode=0755
        if [ ! -f "$prefix/$f" ] || ! cmp -s "$src/$f" "$prefix/$f"; then
            run install -D -m "$mode" "$src/$f" "$prefix/$f"
            changed=$((changed + 1))
        elif [ "$(stat -c %a "$prefix/$f")" != "${mode#0}" ]; then
            run chmod "$mode" "$prefix/$f"
            changed=$((changed + 1))
        fi
    done < <(project_files)
    if [ -d "$prefix" ]; then
        while IFS= read -r -d '' f; do
            f="${f#"$prefix"/}"
            [ -n "${wanted[$f]:-}" ] && continue
            run rm -f "$prefix/$f"
            changed=$((changed + 1))
        done < <(find "$prefix" -path "$venv" -prune -o \( -type f -o -type l \) -print0)
        while IFS= read -r -d '' f; do
            run rmdir "$f"
        done < <(find "$prefix" -mindepth 1 -path "$venv" -prune -o -type d -empty -print0)
    fi
    note "project files in $PREFIX_REL: $changed changed"
}

create_venv() {
    local want have=""
    want="$("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')"
    if [ -x "$venv/bin/python" ] && grep -qx 'include-system-site-packages = true' "$venv/pyvenv.cfg" 2>/dev/null; then
        have="$("$venv/bin/python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null || true)"
    fi
    if [ "$have" = "$want" ]; then
        note "venv $PREFIX_REL/.venv is in place (Python $have, system site packages visible)"
        return 0
    fi
    run "$python" -m venv --clear --system-site-packages "$venv"
}

install_project() {
    local pip=("$venv/bin/python" -m pip install --disable-pip-version-check --no-input
               --upgrade-strategy only-if-needed --constraint "$prefix/systemd/pi-constraints.txt" "$prefix")
    if [ -n "$root" ]; then
        printf 'install: skipped (--root, needs the network):'; printf ' %q' "${pip[@]}"; printf '\n'
        return 0
    fi
    PIP_ROOT_USER_ACTION=ignore run "${pip[@]}"
    # setuptools builds in the source folder: leave /opt/kipukas-tracker exactly as the checkout.
    run rm -rf "$prefix/build" "$prefix/kipukas_tracker.egg-info"
    if [ "$dry_run" = 0 ]; then
        "$venv/bin/$SERVICE" --help >/dev/null
        "$venv/bin/python" -c 'import picamera2' 2>/dev/null \
            || note "warning: the venv cannot import picamera2 (is python3-picamera2 installed?)"
    fi
}

# The rules engine compiled for the package pip installed, so its stamp is of the sources the service imports.
build_engine() {
    local mypy pkg status=0
    if ! mypy="$("$python" -c 'import sys, tomllib
with open(sys.argv[1], "rb") as f:
    dev = tomllib.load(f)["project"]["optional-dependencies"]["dev"]
print(next(r for r in dev if r.split(">")[0].split("=")[0].strip() == "mypy"))' "$src/pyproject.toml")"; then
        note "warning: cannot read mypy's pin from pyproject.toml (Python 3.11+ reads it); the rules engine" \
            "stays interpreted"
        return 0
    fi
    local tools=("$venv/bin/python" -m pip install --disable-pip-version-check --no-input
                 --upgrade-strategy only-if-needed --constraint "$prefix/systemd/pi-constraints.txt" "$mypy" setuptools)
    if [ -n "$root" ]; then
        printf 'install: skipped (--root, nothing pip-installed to build for):'; printf ' %q' "${tools[@]}"; printf '\n'
        printf 'install: skipped (--root, nothing pip-installed to build for):'
        printf ' %q' "$venv/bin/python" "$prefix/scripts/build_rules.py" --package SITE-PACKAGES/rules/kipukas
        printf '\n'
        return 0
    fi
    if [ "$dry_run" = 1 ]; then
        pkg="$venv/lib/$("$python" -c 'import sys; print("python%d.%d" % sys.version_info[:2])')/site-packages/rules/kipukas"
    else
        pkg="$("$venv/bin/python" -c 'from rules.kipukas.compiled import package_dir; print(package_dir())')"
    fi
    PIP_ROOT_USER_ACTION=ignore run "${tools[@]}" || status=$?
    if [ "$status" = 0 ]; then
        run "$venv/bin/python" "$prefix/scripts/build_rules.py" --package "$pkg" || status=$?
    fi
    if [ "$status" != 0 ]; then
        note "warning: the rules engine was not compiled (status $status, see above); the service runs the" \
            "interpreted engine, ~1.4x slower a step. Install gcc and python3-dev, then run this again."
    fi
}

link_command() {
    local target="$PREFIX_REL/.venv/bin/$SERVICE"
    if [ "$(readlink "$bin_link" 2>/dev/null || true)" = "$target" ]; then
        return 0
    fi
    run mkdir -p "$(dirname "$bin_link")"
    run ln -sfn "$target" "$bin_link"
}

write_config() {
    local conf="$conf_dir/table.toml"
    if [ -e "$conf" ]; then
        note "configuration $conf kept (the commented default is $PREFIX_REL/systemd/table.toml)"
        return 0
    fi
    run install -D -m 0640 "$src/systemd/table.toml" "$conf"
    system chgrp "$SERVICE_USER" "/etc/$SERVICE/table.toml"  # the service reads it; the judge PIN stays private
}

install_unit() {
    local unit="$unit_dir/$SERVICE.service"
    if [ -f "$unit" ] && cmp -s "$src/systemd/$SERVICE.service" "$unit"; then
        note "unit $unit is up to date"
    else
        run install -D -m 0644 "$src/systemd/$SERVICE.service" "$unit"
    fi
    if [ -n "$root" ]; then
        # Enabling is only a symlink: systemctl can make it inside the root without a running systemd.
        if ! command -v systemctl >/dev/null; then
            note "skipped (--root, no systemctl here): systemctl enable $SERVICE.service"
        elif [ "$(systemctl --root="$root" is-enabled "$SERVICE.service" 2>/dev/null || true)" != enabled ]; then
            run systemctl --quiet --root="$root" enable "$SERVICE.service"
        fi
        system systemctl daemon-reload
        system systemctl restart "$SERVICE.service"
        return 0
    fi
    if [ ! -d /run/systemd/system ]; then
        run systemctl --quiet enable "$SERVICE.service"
        note "systemd is not running here: the service starts at the next boot"
        return 0
    fi
    system systemctl daemon-reload
    system systemctl --quiet enable "$SERVICE.service"
    if [ "$start" = 1 ]; then
        system systemctl restart "$SERVICE.service"
    else
        note "--no-start: start it with: sudo systemctl start $SERVICE"
    fi
}

check_platform
install_packages
create_user
sync_project
create_venv
install_project
build_engine
link_command
write_config
install_unit
[ "$dry_run" = 0 ] || note "dry run: nothing was changed"
note "done. Configuration: /etc/$SERVICE/table.toml; state: $STATE_REL; logs: journalctl -u $SERVICE -f"
