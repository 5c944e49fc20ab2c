"""The tournament hub: many tables push their signed records here; organisers, judges and spectators
watch every table from one place. Several single-worker Flask-SocketIO processes share Redis as their
message queue and as the durable store of every row (docs/hub.md)."""
