"""The organiser's page chooses a play style and the seats' token colours (checked as the calibration
page checks learned colours: too close to each other or to the map, refused before anything starts), and
registers decks with the front camera: real card photos decoded into a seat's list, shown by name, and
used for a seat left empty."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from rules.kipukas.board_map import BoardMap
from tests.table_helpers import DECKS, KEY
from tests.test_run_command import deck_lines
from tracker.config import parse_config
from tracker.front.camera import FrontCamera
from tracker.front.scan import kipukas_reader
from tracker.record.store import GameRecord
from tracker.runtime.appliance import TableRuntime, current_game
from tracker.sources.capture import Frame
from tracker.table.table import Table
from vision.palette import SUGGESTIONS
from vision.synth.renderer import Renderer
from vision.synth.scene import TableScene
from web.app import create_app

CONFIG = "[recording]\nkeyframes = false\n"


def runtime_of(tmp_path: Path, config: str = CONFIG) -> TableRuntime:
    table = Table(BoardMap.packaged(), GameRecord(str(tmp_path / "old.sqlite"), KEY), DECKS)
    return TableRuntime(parse_config(config), table, tmp_path)


def test_a_play_style_is_chosen_and_an_unknown_one_refused(tmp_path: Path) -> None:
    runtime = runtime_of(tmp_path)
    http = create_app(runtime.service)[0].test_client()
    key = runtime.service.judge_key()
    page = http.get("/organise").get_data(as_text=True)
    assert 'value="king-of-the-hill"' in page and "King of the hill" in page
    red, blue = "\n".join(deck_lines(0)), "\n".join(deck_lines(100))
    bad = http.post("/organise/new", data={"k": key, "red_deck": red, "blue_deck": blue, "style": "captive"})
    assert bad.status_code == 400 and "captive" in bad.get_json()["error"]  # named, not refereed yet
    assert current_game(tmp_path) is None
    ok = http.post("/organise/new", data={"k": key, "red_deck": red, "blue_deck": blue, "style": "coastal-war"})
    assert ok.status_code == 200, ok.get_json()
    assert runtime.table.start["style"]["name"] == "coastal-war" and runtime.table.game.style.name == "coastal-war"


def test_seat_colours_are_checked_against_each_other_before_anything_starts(tmp_path: Path) -> None:
    runtime = runtime_of(tmp_path)
    http = create_app(runtime.service)[0].test_client()
    key = runtime.service.judge_key()
    red, blue = "\n".join(deck_lines(0)), "\n".join(deck_lines(100))
    no_frame = http.post("/organise/new", data={"k": key, "red_deck": red, "blue_deck": blue,
                                                "red_colour": "yellow", "blue_colour": "purple"})
    assert no_frame.status_code == 400 and "overhead camera" in no_frame.get_json()["error"]
    pose = runtime.calibration.pose  # the overhead camera's view of the empty table, as the reader has it
    runtime.latest["overhead"] = Renderer(runtime.layout, pose, dict(SUGGESTIONS)).render(TableScene({}), seed=3)
    page = http.get("/organise").get_data(as_text=True)
    assert 'id="red_colour"' in page and '<option value="purple">' in page
    same = http.post("/organise/new", data={"k": key, "red_deck": red, "blue_deck": blue,
                                            "red_colour": "green", "blue_colour": "green"})
    assert same.status_code == 400 and "too close to each other" in same.get_json()["error"]
    assert current_game(tmp_path) is None, "a refused choice starts nothing"
    unknown = http.post("/organise/new", data={"k": key, "red_deck": red, "blue_deck": blue,
                                               "red_colour": "mauve", "blue_colour": "blue"})
    assert unknown.status_code == 400 and "mauve" in unknown.get_json()["error"]
    ok = http.post("/organise/new", data={"k": key, "red_deck": red, "blue_deck": blue,
                                          "red_colour": "red", "blue_colour": "blue"})
    assert ok.status_code == 200, ok.get_json()
    assert runtime.palette["red"] == SUGGESTIONS["red"] and runtime.palette["blue"] == SUGGESTIONS["blue"]
    assert ok.get_json()["palette"]["red"] == "#d22828"


def test_decks_are_registered_with_the_front_camera(tmp_path: Path, shared_dir: Path) -> None:
    runtime = runtime_of(tmp_path, CONFIG + "[front]\nsource = \"opencv\"\n")
    http = create_app(runtime.service)[0].test_client()
    key = runtime.service.judge_key()
    assert "Register with the front camera" in http.get("/organise").get_data(as_text=True)
    assert http.post("/organise/register", data={"action": "start", "seat": "red"}).status_code == 403
    started = http.post("/organise/register", data={"k": key, "action": "start", "seat": "red"}).get_json()
    assert started["ok"] and started["registering"] == "red"
    camera = FrontCamera(kipukas_reader())  # real photos of real cards, decoded as the front loop does
    photos = sorted((shared_dir / "kipukas" / "qr-photos-dev").glob("*.jpg"))[:4]
    shown = []
    for i, photo in enumerate([*photos, photos[0]]):  # the first card shown again, after a gap
        image = np.asarray(cv2.imread(str(photo)), dtype=np.uint8)
        for card in camera.process(Frame(i, 10.0 * i, image)):
            shown.append(card.physical_id)
            assert runtime.enrolment.offer(card.payload), "registering: the game must not get the card"
    status = http.post("/organise/register", data={"k": key, "action": "status"}).get_json()
    red = status["decks"]["red"]
    assert shown and red["count"] == len(set(shown)) and not red["valid"]
    assert any("Shard's Desert" in name for name in red["cards"])  # by name, not by payload
    assert status["problems"] and "already in the deck" in status["problems"][0]
    assert "?" not in str(status), "a card's private token never reaches the page"
    http.post("/organise/register", data={"k": key, "action": "start", "seat": "red"})  # a fresh list
    for line in deck_lines(0):  # the seat's whole deck shown, card after card
        assert runtime.enrolment.offer(line)
    http.post("/organise/register", data={"k": key, "action": "stop"})
    assert not runtime.enrolment.offer(deck_lines(0)[0]), "stopped: cards shown go to the game again"
    ok = http.post("/organise/new", data={"k": key, "red_deck": "", "blue_deck": "\n".join(deck_lines(100))})
    assert ok.status_code == 200, ok.get_json()
    assert len(runtime.table.start["decks"]["red"]) == 30
    assert runtime.table.start["decks"]["red"][0] == deck_lines(0)[0].split("/")[1].split("?")[0]
