#!/usr/bin/env bash
# Set up the tournament hub on the organiser's Debian 12 laptop or server (docs/hub.md), container-free:
#
#   sudo scripts/setup-hub.sh [--workers N] [--listen PORT]     (defaults: 2 hub processes, nginx on port 80)
#   scripts/setup-hub.sh --dry-run                              print what would change; change nothing
#
# 1. apt-get installs Debian's redis-server and nginx.
# 2. Redis: loopback only, a generated password, AOF with `appendfsync always` (a row the hub acknowledged
#    is on disk), no RDB snapshots; written as /etc/redis/kipukas-hub.conf and included from redis.conf.
# 3. installs this checkout like a table (systemd/install.sh --no-start: /opt/kipukas-tracker, user kipukas).
# 4. writes /etc/kipukas-tracker/hub.toml (kept when present: add tables with `kipukas-tracker hub token`).
# 5. the nginx site (ip_hash over the hub processes, websockets, no buffering) and kipukas-hub@PORT units
#    on ports 7001.., enabled and started.
set -euo pipefail
umask 022

workers=2
listen=80
dry_run=0
while [ "$#" -gt 0 ]; do
    case "$1" in
        --workers) workers="$2"; shift 2 ;;
        --listen) listen="$2"; shift 2 ;;
        --dry-run) dry_run=1; shift ;;
        -h|--help) sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "setup-hub.sh: unknown option: $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$workers" in ''|*[!0-9]*) echo "setup-hub.sh: --workers needs a number" >&2; exit 2 ;; esac
if [ "$dry_run" = 0 ] && [ "$(id -u)" != 0 ]; then
    echo "setup-hub.sh: run it as root: sudo $0" >&2
    exit 2
fi
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
run() { printf '+'; printf ' %q' "$@"; printf '\n'; [ "$dry_run" = 1 ] || "$@"; }
write() {  # write FILE MODE: stdin to FILE, unless --dry-run
    if [ "$dry_run" = 1 ]; then echo "+ write $1"; cat >/dev/null; else install -D -m "$2" /dev/stdin "$1"; fi
}

run apt-get install -y --no-install-recommends redis-server nginx

password_file=/etc/kipukas-tracker/redis-password
if [ -s "$password_file" ]; then password="$(cat "$password_file")"; else
    password="$(head -c 32 /dev/urandom | base64 | tr -d '/+=' | cut -c1-32)"
    printf '%s\n' "$password" | write "$password_file" 0600
fi
write /etc/redis/kipukas-hub.conf 0640 <<CONF
bind 127.0.0.1 -::1
protected-mode yes
requirepass $password
appendonly yes
appendfsync always
save ""
CONF
[ "$dry_run" = 1 ] || chown redis:redis /etc/redis/kipukas-hub.conf
if ! grep -q '^include /etc/redis/kipukas-hub.conf' /etc/redis/redis.conf 2>/dev/null; then
    if [ "$dry_run" = 1 ]; then echo "+ append include to /etc/redis/redis.conf"
    else echo 'include /etc/redis/kipukas-hub.conf' >> /etc/redis/redis.conf; fi
fi
run systemctl restart redis-server

run "$src/systemd/install.sh" --no-start

ports=()
for ((i = 0; i < workers; i++)); do ports+=($((7001 + i))); done
if [ ! -e /etc/kipukas-tracker/hub.toml ]; then
    write /etc/kipukas-tracker/hub.toml 0640 <<TOML
# The tournament hub (docs/hub.md). Add a table: kipukas-tracker hub token --table 1
[hub]
redis_url = "redis://:$password@127.0.0.1:6379/0"
organiser_pin = "$(head -c 4 /dev/urandom | od -An -tu4 | tr -d ' ' | cut -c1-6)"
judge_pin = ""
spectator_delay_min = 15
secret = "$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"

[tables]
TOML
    [ "$dry_run" = 1 ] || chown root:kipukas /etc/kipukas-tracker/hub.toml
fi

if [ "$dry_run" = 1 ]; then echo "+ write /etc/nginx/sites-available/kipukas-hub (ip_hash over ports ${ports[*]})"
else
    /opt/kipukas-tracker/.venv/bin/python -c "import sys; from hub.deploy import nginx_site; \
print(nginx_site(sys.argv[1], [int(p) for p in sys.argv[2:]]))" "$listen" "${ports[@]}" \
        | write /etc/nginx/sites-available/kipukas-hub 0644
fi
run ln -sf /etc/nginx/sites-available/kipukas-hub /etc/nginx/sites-enabled/kipukas-hub
run rm -f /etc/nginx/sites-enabled/default
run install -D -m 0644 "$src/systemd/kipukas-hub@.service" /etc/systemd/system/kipukas-hub@.service
run systemctl daemon-reload
for port in "${ports[@]}"; do run systemctl enable --now "kipukas-hub@$port"; done
run nginx -t
run systemctl reload-or-restart nginx
echo "setup-hub: the hub is on http://$(hostname):$listen/ (organiser page: /organiser, PIN in /etc/kipukas-tracker/hub.toml)"
