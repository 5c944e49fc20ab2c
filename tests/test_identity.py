"""Card identity from QR payloads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules.core.errors import PayloadError
from rules.kipukas.catalog import Catalog
from rules.kipukas.identity import is_kipukas_payload, parse_payload


def test_full_payload() -> None:
    ref = parse_payload("kpks.us/HMPU#0004?BFxDCJ")
    assert (ref.code, ref.serial, ref.token, ref.physical_id) == ("HMPU", "0004", "BFxDCJ", "HMPU#0004")


def test_old_payload_has_no_serial() -> None:
    ref = parse_payload("https://www.kpks.us/frlU")
    assert ref.physical_id == "frlU" and ref.serial is None


def test_binder_link_resolves_by_slug() -> None:
    ref = parse_payload("https://www.kipukas.cards/allele_sect_explorer")
    assert Catalog.packaged().resolve(ref).code == "RrDC"


@pytest.mark.parametrize("bad", ["", "hello", "https://example.com/HMPU", "kpks.us/HM", "4006381333931"])
def test_non_kipukas_payloads(bad: str) -> None:
    assert not is_kipukas_payload(bad)
    with pytest.raises(PayloadError):
        parse_payload(bad)


def test_unknown_code_is_a_clear_error() -> None:
    with pytest.raises(PayloadError, match="unknown card code"):
        Catalog.packaged().resolve(parse_payload("kpks.us/QQQQ#0001?abc"))


def test_every_dev_photo_payload_is_a_known_card(shared_dir: Path) -> None:
    truth = json.loads((shared_dir / "kipukas" / "qr-photos-dev" / "truth.json").read_text())
    catalog = Catalog.packaged()
    for entry in truth["images"].values():
        for payload in entry["cards"]:
            assert catalog.resolve(parse_payload(payload)).code == parse_payload(payload).code
