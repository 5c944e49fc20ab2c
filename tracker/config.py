"""The table configuration: one TOML file per table (`/etc/kipukas-tracker/table.toml` on a Pi).

Validated strictly: an unknown section or key, a wrong type or a value out of range is an error that
names the file, the section and the key. Relative paths (map, calibration, camera recordings) are resolved
against the file's folder, except
`table.state_dir`, which must be absolute when given (the service's StateDirectory).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracker.errors import TrackerError

SOURCES = ("picamera2", "opencv", "folder", "video", "synthetic", "none")


class ConfigError(TrackerError, ValueError):
    def __init__(self, source: str, key: str, problem: str) -> None:
        self.source, self.key, self.problem = source, key, problem
        super().__init__(f"{source}: {key}: {problem}")


@dataclass(frozen=True)
class CameraConfig:
    source: str
    camera: int
    path: str
    width: int
    height: int
    fps: float
    timeout_s: float


@dataclass(frozen=True)
class TableConfig:
    name: str = "table"
    players: tuple[str, ...] = ("red", "blue")
    map: str = "starter"
    state_dir: str = ""
    judge_pin: str = ""
    overhead: CameraConfig = field(default_factory=lambda: CameraConfig("picamera2", 0, "", 2028, 1520, 10.0, 2.0))
    front: CameraConfig = field(default_factory=lambda: CameraConfig("none", 1, "", 1280, 720, 10.0, 2.0))
    calibration: str = ""
    frames_to_agree: int = 3
    host: str = "127.0.0.1"
    port: int = 5000
    spectator_delay_min: float = 0.0
    allowed_origins: tuple[str, ...] = ()
    public_url: str = ""
    keyframes: bool = True
    keyframe_limit_mb: float = 2000.0
    keyframe_warn_percent: float = 80.0
    hub_url: str = ""  # the tournament hub this table pushes its records to (with hub_token)
    hub_token: str = ""
    game: str = "kipukas"  # [game] name: a game of rules.core.registry (checked by `game new`)
    game_params: tuple[tuple[str, Any], ...] = ()  # [game]'s other keys: the game's own configuration
    # [style]: the play style new games at this table use (#playstyleoptions; `game new --style` overrides)
    style: str = "domination"
    style_cycles: int | None = None
    style_params: tuple[tuple[str, int | str], ...] = ()  # limit, hold, camps; hill, marked (territories); hunted
    source_file: str = "<defaults>"

    def style_body(self) -> dict[str, Any]:
        """The style as a record's start row keeps it: ``{"name", "cycles", "params"}``."""
        return {"name": self.style, "cycles": self.style_cycles, "params": dict(self.style_params)}


STYLE_NUMBERS = {"limit": (1, 60), "hold": (1, 100), "camps": (0, 8)}  # [style] key -> allowed range
STYLE_TERRITORIES = ("hill", "marked")  # [style] keys naming a territory id of the map
STYLE_TEXTS = ("hunted",)  # [style] keys naming something else (The hunt: the huntable type)


class _Section:
    def __init__(self, source: str, name: str, data: Any) -> None:
        self.source, self.name = source, name
        if not isinstance(data, dict):
            raise ConfigError(source, f"[{name}]", "expected a table (section)")
        self.data: dict[str, Any] = data
        self.used: set[str] = set()

    def _fail(self, key: str, problem: str) -> ConfigError:
        return ConfigError(self.source, f"[{self.name}] {key}", problem)

    def _get(self, key: str, default: Any, types: tuple[type, ...], what: str) -> Any:
        self.used.add(key)
        if key not in self.data:
            return default
        value = self.data[key]
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            raise self._fail(key, f"expected {what}, got {value!r}")
        return value

    def text(self, key: str, default: str, choices: tuple[str, ...] | None = None) -> str:
        value: str = self._get(key, default, (str,), "a string")
        if choices is not None and value not in choices:
            raise self._fail(key, f"{value!r} is not one of {', '.join(choices)}")
        return value

    def integer(self, key: str, default: int, low: int, high: int) -> int:
        value: int = self._get(key, default, (int,), "a whole number")
        if not low <= value <= high:
            raise self._fail(key, f"{value} is outside {low}..{high}")
        return value

    def number(self, key: str, default: float, low: float, high: float) -> float:
        value = float(self._get(key, default, (int, float), "a number"))
        if not low <= value <= high:
            raise self._fail(key, f"{value:g} is outside {low:g}..{high:g}")
        return value

    def flag(self, key: str, default: bool) -> bool:
        value: bool = self._get(key, default, (bool,), "true or false")
        return value

    def strings(self, key: str, default: tuple[str, ...]) -> tuple[str, ...]:
        value = self._get(key, list(default), (list,), "a list of strings")
        if not all(isinstance(v, str) and v for v in value):
            raise self._fail(key, "expected a list of non-empty strings")
        return tuple(value)

    def finish(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            raise self._fail(unknown[0], f"unknown key (known: {', '.join(sorted(self.used))})")


def _camera(sec: _Section, default: CameraConfig, base: Path | None) -> CameraConfig:
    path = sec.text("path", default.path)
    if path and base is not None and not Path(path).is_absolute():
        path = str((base / path).resolve())
    cam = CameraConfig(
        source=sec.text("source", default.source, SOURCES),
        camera=sec.integer("camera", default.camera, 0, 16),
        path=path,
        width=sec.integer("width", default.width, 160, 8192),
        height=sec.integer("height", default.height, 120, 8192),
        fps=sec.number("fps", default.fps, 0.5, 120.0),
        timeout_s=sec.number("timeout_s", default.timeout_s, 0.1, 60.0),
    )
    if cam.source in ("folder", "video") and not cam.path:
        raise ConfigError(sec.source, f"[{sec.name}] path", f"source {cam.source!r} needs a path")
    sec.finish()
    return cam


KIPUKAS_SEATINGS = (("red", "blue"), ("red", "blue", "green"), ("red", "blue", "green", "yellow"))  # rules' seats


def parse_config(text: str, source: str = "<string>", base: Path | None = None) -> TableConfig:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, "<file>", f"not TOML: {exc}") from exc
    d = TableConfig()
    known = ("table", "overhead", "front", "tracking", "web", "recording", "hub", "game", "style")
    for name in data:
        if name not in known:
            raise ConfigError(source, f"[{name}]", f"unknown section (known: {', '.join(known)})")
    sec = {name: _Section(source, name, data.get(name, {})) for name in known}
    t = sec["table"]
    g = sec["game"]
    game = g.text("name", d.game)
    if not re.fullmatch(r"[a-z][a-z0-9_]*", game):
        raise ConfigError(source, "[game] name", f"{game!r} is not a game name (one lowercase word, e.g. kipukas)")
    game_params = tuple(sorted((k, v) for k, v in g.data.items() if k != "name"))
    if game == "kipukas":
        g.finish()  # Kipukas takes its style from `game new --style`, not from [game]
    players = t.strings("players", d.players)
    if game == "kipukas" and players not in KIPUKAS_SEATINGS:
        raise ConfigError(source, "[table] players", "Kipukas seats two players (red, blue), or 3-4 for Mass conflict "
                                                     "and Band together (red, blue, green[, yellow]), in that order")
    if not 2 <= len(players) <= 5 or len(set(players)) != len(players):
        raise ConfigError(source, "[table] players", f"{game} is played by 2 to 5 players with different colours")
    state_dir = t.text("state_dir", d.state_dir)
    if state_dir and not Path(state_dir).is_absolute():
        raise ConfigError(source, "[table] state_dir", f"{state_dir!r} must be an absolute path")
    map_name = t.text("map", d.map)
    if ("/" in map_name or map_name.endswith(".json")) and base is not None:
        map_name = str((base / map_name).resolve())
    cfg_args: dict[str, Any] = dict(
        name=t.text("name", d.name), players=players, map=map_name, state_dir=state_dir,
        judge_pin=t.text("judge_pin", d.judge_pin), game=game, game_params=game_params,
    )
    t.finish()
    tr = sec["tracking"]
    calibration = tr.text("calibration", d.calibration)
    if calibration and base is not None and not Path(calibration).is_absolute():
        calibration = str((base / calibration).resolve())
    cfg_args.update(calibration=calibration, frames_to_agree=tr.integer("frames_to_agree", d.frames_to_agree, 1, 30))
    tr.finish()
    w = sec["web"]
    cfg_args.update(host=w.text("host", d.host), port=w.integer("port", d.port, 1, 65535),
                    spectator_delay_min=w.number("spectator_delay_min", d.spectator_delay_min, 0.0, 240.0),
                    allowed_origins=w.strings("allowed_origins", d.allowed_origins),
                    public_url=w.text("public_url", d.public_url).rstrip("/"))
    if cfg_args["public_url"] and not re.match(r"^https?://[^/\s]+$", cfg_args["public_url"]):
        raise ConfigError(source, "[web] public_url", f"{cfg_args['public_url']!r} is not http(s)://HOST[:PORT]")
    w.finish()
    r = sec["recording"]
    cfg_args.update(keyframes=r.flag("keyframes", d.keyframes),
                    keyframe_limit_mb=r.number("keyframe_limit_mb", d.keyframe_limit_mb, 1.0, 1_000_000.0),
                    keyframe_warn_percent=r.number("keyframe_warn_percent", d.keyframe_warn_percent, 1.0, 100.0))
    r.finish()
    h = sec["hub"]
    cfg_args.update(hub_url=h.text("url", d.hub_url).rstrip("/"), hub_token=h.text("token", d.hub_token))
    if cfg_args["hub_url"] and not re.match(r"^https?://[^/\s]+(/[^\s]*)?$", cfg_args["hub_url"]):
        raise ConfigError(source, "[hub] url", f"{cfg_args['hub_url']!r} is not http(s)://HOST[:PORT]")
    if bool(cfg_args["hub_url"]) != bool(cfg_args["hub_token"]):
        raise ConfigError(source, "[hub] token" if cfg_args["hub_url"] else "[hub] url",
                          "the hub needs both url and token (or neither)")
    h.finish()
    cfg_args.update(_style(sec["style"], d))
    overhead = _camera(sec["overhead"], d.overhead, base)
    front = _camera(sec["front"], d.front, base)
    return TableConfig(**cfg_args, overhead=overhead, front=front, source_file=source)


def _style(sec: _Section, d: TableConfig) -> dict[str, Any]:
    """[style]: ``name`` and the style's parameters, typed here; the composition root checks the name
    against the rules' styles (this module imports nothing of the rules) and names ``[style] name``."""
    name = sec.text("name", d.style).strip().lower()
    if not name:
        raise sec._fail("name", "expected a play style name, e.g. domination or king-of-the-hill")
    cycles: int | None = sec.integer("cycles", 0, 1, 1000) if "cycles" in sec.data else None
    params: list[tuple[str, int | str]] = []
    for key, (low, high) in STYLE_NUMBERS.items():
        if key in sec.data:
            params.append((key, sec.integer(key, 0, low, high)))
    for key in STYLE_TERRITORIES:
        if key in sec.data:
            value = sec.text(key, "")
            if not value:
                raise sec._fail(key, "expected a territory id of the map")
            params.append((key, value))
    for key in STYLE_TEXTS:
        if key in sec.data:
            value = sec.text(key, "")
            if not value.strip():
                raise sec._fail(key, "expected the huntable type: a card code, title, gene, habitat or type")
            params.append((key, value))
    sec.finish()
    return {"style": name, "style_cycles": cycles, "style_params": tuple(params)}


def load_config(path: str | Path) -> TableConfig:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(str(p), "<file>", f"cannot read: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(str(p), "<file>", "not UTF-8 text") from exc
    return parse_config(text, str(p), p.parent)
