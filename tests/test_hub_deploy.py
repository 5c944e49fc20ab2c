"""The hub's deployment files: the nginx site shipped in systemd/ is the one the code renders and nginx
accepts it, the unit runs one hub process per port, and scripts/setup-hub.sh is shellcheck-clean and
says in --dry-run every step it would take."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from hub.deploy import nginx_site
from tests.hub_servers import Nginx

ROOT = Path(__file__).resolve().parents[1]


def test_shipped_nginx_site_is_the_rendered_one_and_nginx_accepts_it(tmp_path: Path) -> None:
    shipped = (ROOT / "systemd" / "kipukas-hub.nginx.conf").read_text(encoding="utf-8")
    assert shipped == nginx_site("80", [7001, 7002])
    for needed in ("ip_hash;", "proxy_set_header Upgrade $http_upgrade;", "proxy_buffering off;",
                   "server 127.0.0.1:7001", "server 127.0.0.1:7002"):
        assert needed in shipped
    server = Nginx(tmp_path, [7001, 7002])
    done = subprocess.run([server.exe, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr


def test_unit_runs_one_hub_process_per_port() -> None:
    unit = (ROOT / "systemd" / "kipukas-hub@.service").read_text(encoding="utf-8")
    assert "hub --config /etc/kipukas-tracker/hub.toml --port %i" in unit
    assert "Requires=redis-server.service" in unit and "Restart=always" in unit


def test_setup_hub_script_is_clean_and_its_dry_run_names_every_step() -> None:
    script = ROOT / "scripts" / "setup-hub.sh"
    shellcheck = shutil.which("shellcheck")
    assert shellcheck, "shellcheck is not installed: run scripts/setup.sh --with-browser"
    lint = subprocess.run([shellcheck, str(script), str(ROOT / "scripts" / "setup.sh")], capture_output=True,
                          text=True, timeout=60)
    assert lint.returncode == 0, lint.stdout
    done = subprocess.run([str(script), "--dry-run", "--workers", "3"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for step in ("apt-get install -y --no-install-recommends redis-server nginx", "/etc/redis/kipukas-hub.conf",
                 "systemd/install.sh --no-start", "/etc/kipukas-tracker/hub.toml", "ports 7001 7002 7003",
                 "systemctl enable --now kipukas-hub@7003", "nginx -t"):
        assert step in done.stdout, f"dry run does not mention {step!r}:\n{done.stdout}"
    bad = subprocess.run([str(script), "--dry-run", "--workers", "x"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--workers needs a number" in bad.stderr
