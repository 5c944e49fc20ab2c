"""The table configuration file: strict validation with errors naming file, section and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracker.config import ConfigError, load_config, parse_config

ROOT = Path(__file__).resolve().parents[1]


def test_shipped_default_config_loads() -> None:
    cfg = load_config(ROOT / "systemd" / "table.toml")
    assert cfg.players == ("red", "blue") and cfg.overhead.source == "picamera2" and cfg.port == 5000


def test_empty_config_gives_defaults() -> None:
    cfg = parse_config("")
    assert cfg.overhead.source == "picamera2" and cfg.front.source == "none" and cfg.frames_to_agree == 3


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        ("[table]\ncolour = 'red'\n", "[table] colour", "unknown key"),
        ("[tabel]\n", "[tabel]", "unknown section"),
        ("[web]\nport = 70000\n", "[web] port", "outside"),
        ("[web]\nport = '5000'\n", "[web] port", "a whole number"),
        ("[overhead]\nsource = 'webcam'\n", "[overhead] source", "not one of"),
        ("[overhead]\nsource = 'folder'\n", "[overhead] path", "needs a path"),
        ("[table]\nplayers = ['red']\n", "[table] players", "two players"),
        ("[table]\nstate_dir = 'state'\n", "[table] state_dir", "absolute"),
        ("[recording]\nkeyframes = 1\n", "[recording] keyframes", "true or false"),
        ("[table\n", "<file>", "not TOML"),
        ("[web]\npublic_url = 'table-1:5000'\n", "[web] public_url", "not http(s)://HOST[:PORT]"),
        ("[style]\nname = 3\n", "[style] name", "a string"),
        ("[style]\ncycles = 0\n", "[style] cycles", "outside"),
        ("[style]\nlimit = 'five'\n", "[style] limit", "a whole number"),
        ("[style]\nhill = ''\n", "[style] hill", "territory id"),
        ("[style]\nturns = 20\n", "[style] turns", "unknown key"),
    ],
)
def test_bad_values_name_the_key(text: str, key: str, problem: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text, "table.toml")
    assert info.value.key == key and problem in info.value.problem
    assert str(info.value).startswith("table.toml: ")


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"\xff\xfe[table]")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(bad)


def test_relative_paths_resolve_against_the_config_folder(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text("[table]\nmap = 'maps/club.json'\n[tracking]\ncalibration = 'cal.json'\n")
    cfg = load_config(path)
    assert cfg.map == str(tmp_path / "maps" / "club.json") and cfg.calibration == str(tmp_path / "cal.json")


def test_style_section_chooses_the_play_style_of_new_games() -> None:
    """Issue 19 item 4: table.toml chooses a play style and its parameters, as `game new --style` does."""
    cfg = parse_config("[style]\nname = 'King-of-the-Hill'\ncycles = 30\nhold = 4\nhill = '3'\n")
    assert cfg.style_body() == {"name": "king-of-the-hill", "cycles": 30, "params": {"hold": 4, "hill": "3"}}
    assert parse_config("").style_body() == {"name": "domination", "cycles": None, "params": {}}
