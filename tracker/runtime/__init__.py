"""Room 6, the composition root: the pieces wired into a running table.

`appliance` builds a table from `table.toml` (cameras, reader, record, service); `demo` and `demo_script`
do the same for the built-in synthetic table; `server` is the only module that wires `web` to the
tracker; `watchdog` and `sdnotify` report liveness to systemd.

May import anything of ours, `web` included (only here and in `tracker.commands`).
"""
