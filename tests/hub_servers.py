"""Real servers for the hub's tests and bench: Debian's redis-server and nginx, and hub processes, each a
subprocess on free loopback ports in a temporary folder, stopped at the end. A missing binary is a clear
failure (scripts/setup.sh --with-browser installs them), never a skip."""

from __future__ import annotations

import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from hub.deploy import nginx_site
from hub.settings import new_token

ROOT = Path(__file__).resolve().parent.parent


class ServerMissing(AssertionError):
    pass


def binary(name: str, candidates: tuple[str, ...]) -> str:
    for path in (shutil.which(name), *candidates):
        if path and os.access(path, os.X_OK):
            return path
    raise ServerMissing(f"{name} is not installed: run scripts/setup.sh --with-browser (apt-get install "
                        f"redis-server nginx)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# A hub process imports Flask-SocketIO, gevent and redis before it listens: about a second of CPU, which took
# over 15 s on a loaded machine (a CI failure). Waiting is by polling, so a generous deadline costs nothing
# on a quiet machine; a process that died is reported at once, not after the deadline.
START_S = 90.0


def wait_port(port: int, timeout: float = START_S, host: str = "127.0.0.1",
              proc: subprocess.Popen[bytes] | None = None, log: Path | None = None) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with suppress(OSError), socket.create_connection((host, port), timeout=2.0):
            return
        if proc is not None and proc.poll() is not None:
            said = log.read_text(errors="replace")[-2000:] if log is not None and log.exists() else ""
            raise AssertionError(f"the process for {host}:{port} exited with {proc.returncode} before "
                                 f"listening: {said}")
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on {host}:{port} after {timeout:g} s")


class Redis:
    """redis-server on loopback with a password, AOF and `appendfsync always`, in its own folder."""

    def __init__(self, folder: Path) -> None:
        self.exe = binary("redis-server", ("/usr/bin/redis-server",))
        self.folder, self.port, self.password = folder, free_port(), new_token()[0]
        self.proc: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"redis://:{self.password}@127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--protected-mode", "yes",
             "--requirepass", self.password, "--dir", str(self.folder), "--appendonly", "yes",
             "--appendfsync", "always", "--save", "", "--daemonize", "no", "--logfile", "redis.log"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(self.port, proc=self.proc, log=self.folder / "redis.log")

    def kill(self) -> None:
        """SIGKILL: no goodbye, so what survives is what `appendfsync always` put on disk."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.proc = None


class HubWorker:
    """One `kipukas-tracker hub` process on its own port."""

    def __init__(self, config: Path, log: Path) -> None:
        self.config, self.log, self.port = config, log, free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, wait: bool = True) -> None:
        """Start the process and (with `wait`) return once it listens; `Hub.start` starts every process
        first and then waits, so their imports overlap."""
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "tracker.cli", "hub", "--config", str(self.config),
                                          "--port", str(self.port)], stdout=out, stderr=subprocess.STDOUT, env=env,
                                         cwd=ROOT)
        if wait:
            self.wait()

    def wait(self) -> None:
        assert self.proc is not None, "wait() before start()"
        wait_port(self.port, proc=self.proc, log=self.log)

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
            self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
            self.proc = None


class Nginx:
    """nginx in a temporary prefix with the hub's site (ip_hash over the workers, websockets, no buffering)."""

    def __init__(self, folder: Path, hub_ports: list[int], worker_connections: int = 8192) -> None:
        self.exe = binary("nginx", ("/usr/sbin/nginx",))
        self.folder, self.port = folder, free_port()
        folder.mkdir(parents=True, exist_ok=True)
        for sub in ("logs", "tmp"):
            (folder / sub).mkdir(exist_ok=True)
        user = "user root;\n" if os.geteuid() == 0 else ""
        # as many descriptors as this machine lets a process have (asking for more fails with an alert)
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        nofile = 65536 if hard == resource.RLIM_INFINITY else min(65536, hard)
        (folder / "nginx.conf").write_text(
            f"{user}worker_processes 1;\nworker_rlimit_nofile {nofile};\npid {folder}/nginx.pid;\n"
            f"error_log {folder}/logs/error.log warn;\n"
            f"events {{ worker_connections {worker_connections}; }}\n"
            f"http {{\n  access_log off;\n  client_body_temp_path {folder}/tmp/body;\n"
            f"  proxy_temp_path {folder}/tmp/proxy;\n  fastcgi_temp_path {folder}/tmp/fcgi;\n"
            f"  uwsgi_temp_path {folder}/tmp/uwsgi;\n  scgi_temp_path {folder}/tmp/scgi;\n"
            + nginx_site(f"127.0.0.1:{self.port}", hub_ports) + "}\n", encoding="utf-8")
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen([self.exe, "-p", str(self.folder), "-c", str(self.folder / "nginx.conf"),
                                      "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_port(self.port, proc=self.proc)
        except (TimeoutError, AssertionError) as exc:
            self.proc.kill()
            err = self.proc.communicate(timeout=5)[1].decode(errors="replace")
            raise AssertionError(f"nginx did not start: {err.strip()}") from exc

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.proc = None


class Hub:
    """Redis, `workers` hub processes and nginx in front: the documented deployment, on loopback."""

    def __init__(self, folder: Path, tables: int, workers: int = 2, delay_min: float = 0.0,
                 broadcast: str = "framed") -> None:
        self.folder = folder
        self.redis = Redis(folder / "redis")
        self.tokens = {str(n): new_token() for n in range(1, tables + 1)}
        self.organiser_pin, self.judge_pin = "4321", "8765"
        config = folder / "hub.toml"
        lines = ["[hub]", f'redis_url = "{self.redis.url}"', f'organiser_pin = "{self.organiser_pin}"',
                 f'judge_pin = "{self.judge_pin}"', f"spectator_delay_min = {delay_min}",
                 f'secret = "{new_token()[0]}"', f'broadcast = "{broadcast}"', "", "[tables]"]
        lines += [f'"{t}" = "{digest}"' for t, (_, digest) in self.tokens.items()]
        config.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.config = config
        self.workers = [HubWorker(config, folder / f"hub-{i}.log") for i in range(workers)]
        self.nginx = Nginx(folder / "nginx", [w.port for w in self.workers])

    def token(self, table: str) -> str:
        return self.tokens[table][0]

    def start(self) -> None:
        self.redis.start()
        for w in self.workers:
            w.start(wait=False)
        for w in self.workers:
            w.wait()
        self.nginx.start()
        for w in self.workers:
            wait_http(f"http://127.0.0.1:{w.port}/healthz")
        wait_http(self.nginx.url + "/healthz")

    def stop(self) -> None:
        self.nginx.stop()
        for w in self.workers:
            w.stop()
        self.redis.stop()

    def logs(self) -> str:
        return "\n".join(w.log.read_text(errors="replace")[-3000:] for w in self.workers if w.log.exists())


def wait_http(url: str, timeout: float = START_S) -> None:
    end = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(url, timeout=5) as resp:
                if resp.status == 200:
                    return
        except OSError as exc:
            last = exc
        time.sleep(0.1)
    raise TimeoutError(f"{url} did not answer 200 within {timeout:g} s ({last})")


@contextmanager
def running_hub(folder: Path, tables: int, workers: int = 2, delay_min: float = 0.0,
                broadcast: str = "framed") -> Iterator[Hub]:
    hub = Hub(folder, tables, workers, delay_min, broadcast)
    try:
        hub.start()
        yield hub
    finally:
        hub.stop()


class CutProxy:
    """A TCP forwarder between one table and nginx that the test can cut (the table's network gone) and
    restore. It connects to nginx from its own loopback address, so nginx's ip_hash tells tables apart."""

    def __init__(self, target_port: int, source_ip: str) -> None:
        self.target_port, self.source_ip = target_port, source_ip
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = int(self.sock.getsockname()[1])
        self.up = threading.Event()
        self.up.set()
        self.closed = False
        self.conns: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            if not self.up.is_set():
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=5,
                                                    source_address=(self.source_ip, 0))
            except OSError:
                client.close()
                continue
            # the connect timeout must not stay on the link: a table idle for 5 s (waiting while the bench's
            # spectators connect) had its link cut under it, and its next push at play start was lost or
            # found the link gone (issue 20: every table reconnected once at the start of the measured window)
            upstream.settimeout(None)
            # the table's own client sets TCP_NODELAY (websocket-client does); a link in between must not
            # hold its small frames back for Nagle's algorithm (up to a delayed ACK, 40 ms) either
            for s in (client, upstream):
                with suppress(OSError):  # a peer already gone: its pipe ends at the first read
                    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                self.conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, a: socket.socket, b: socket.socket) -> None:
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                with suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()

    def cut(self) -> None:
        self.up.clear()
        with self.lock:
            conns, self.conns = self.conns, []
        for s in conns:
            with suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def restore(self) -> None:
        self.up.set()

    def close(self) -> None:
        self.closed = True
        self.cut()
        self.sock.close()
