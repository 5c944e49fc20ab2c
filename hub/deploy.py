"""The nginx site in front of the hub processes: sticky by client address (`ip_hash`, so long-polling
clients stay on one process), websocket upgrade, no buffering. `systemd/kipukas-hub.nginx.conf` is this
text for the default ports; the tests and the bench run it on free ports."""

from __future__ import annotations

from collections.abc import Sequence


def nginx_site(listen: str, hub_ports: Sequence[int], hub_host: str = "127.0.0.1") -> str:
    servers = "\n".join(f"    server {hub_host}:{p} max_fails=1 fail_timeout=2s;" for p in hub_ports)
    return f"""# kipukas-tracker hub: nginx in front of {len(hub_ports)} hub processes (kipukas-hub@PORT.service)
map $http_upgrade $connection_upgrade {{
    default upgrade;
    ''      close;
}}

upstream kipukas_hub {{
    ip_hash;
{servers}
}}

server {{
    listen {listen};
    client_max_body_size 1m;

    location / {{
        proxy_pass http://kipukas_hub;
        proxy_http_version 1.1;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $connection_upgrade;
        proxy_set_header Host $http_host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_buffering off;
        proxy_read_timeout 3600s;
        proxy_next_upstream error timeout http_502;
    }}
}}
"""
