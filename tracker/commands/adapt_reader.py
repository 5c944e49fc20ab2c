"""`kipukas-tracker adapt-reader --frames DIR`: adapt the overhead reader to this table from ~50 labelled
frames (`DIR/labels.json`: frame file -> {stand or slot id -> "empty", "<player> <kind>" or a card face}).

Writes the adaptation (players' colours, each region's empty look, the pieces' sizes, the patch classifier's
last layers re-fitted to this table; see `vision.adapt`) to `--out` (by default `reader_adaptation.npz` in
the state folder, where `run` picks it up) and prints one JSON line: {"frames", "palette", "empty_regions",
"areas", "stands_read_before", "stands_read_after", "classifier", "out"}. The two figures are the share of
labelled stands read right, without and with the adaptation; "classifier" gives, per network, the share of
labelled regions it reads right and confidently, and its log-loss, before and after the re-fit.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from tracker.errors import UsageError

ADAPTATION_FILE = "reader_adaptation.npz"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser("adapt-reader", help="adapt the overhead reader to this table")
    p.add_argument("--frames", required=True, type=Path, metavar="DIR", help="labelled frames and labels.json")
    p.add_argument("--calibration", type=Path, metavar="FILE", help="the overhead calibration file")
    p.add_argument("--out", type=Path, metavar="FILE", default=Path(ADAPTATION_FILE),
                   help=f"where to write the adaptation (default: ./{ADAPTATION_FILE})")
    p.set_defaults(func=adapt_reader)


def adapt_reader(args: argparse.Namespace) -> int:
    from calibration.calfile import load_calibration
    from calibration.camera import default_pose
    from calibration.errors import CalibrationError
    from rules.kipukas.board_map import BoardMap
    from tracker.overhead.layout import table_layout
    from vision.adapt import adapt, classifier_features, load_frames, parse_label
    from vision.board import BoardReader
    from vision.errors import VisionError
    from vision.patch_adapt import confident_right, nll
    from vision.patch_classifier import PatchClassifier
    from vision.regions import slot_regions, stand_regions

    layout = table_layout(BoardMap.packaged())
    try:
        frames = load_frames(args.frames)
        h, w = frames[0][1].shape[:2]
        pose = load_calibration(args.calibration).pose if args.calibration else default_pose(layout, (w, h))
        patches = PatchClassifier.load()
        adaptation = adapt(frames, layout, pose, patches)
    except (VisionError, CalibrationError) as exc:
        raise UsageError(str(exc)) from exc
    stand_ids = {s.id for s in layout.stands}

    def share(with_adaptation: bool) -> float:
        ok = n = 0
        for _, img, labels in frames:
            reader = BoardReader(layout, pose, adaptation.palette, adaptation=adaptation if with_adaptation else None)
            obs = reader.read(img)
            for rid, text in labels.items():
                if rid in stand_ids:
                    o = obs.stands[rid]
                    n += 1
                    ok += (not o.obstructed and o.confidence >= 0.5
                           and (o.state, o.owner) == parse_label(rid, text, set()))
        return round(ok / max(n, 1), 4)

    feats = classifier_features(frames, patches, stand_regions(layout, pose), slot_regions(layout, pose))
    classifier: dict[str, dict[str, float]] = {}
    for kind, net, head in (("stands", patches.stands, adaptation.stand_head),
                            ("slots", patches.slots, adaptation.slot_head)):
        f, labels = feats[kind]
        assert head is not None
        classifier[kind] = {"regions": len(labels),
                            "confident_right_before": round(confident_right(net.head, f, labels, net.classes), 4),
                            "confident_right_after": round(confident_right(head, f, labels, net.classes), 4),
                            "log_loss_before": round(nll(net.head, f, labels, net.classes), 4),
                            "log_loss_after": round(nll(head, f, labels, net.classes), 4)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    adaptation.save(args.out)
    print(json.dumps({"frames": len(frames), "palette": {k: list(v) for k, v in adaptation.palette.items()},
                      "empty_regions": len(adaptation.empty),
                      "areas": {k: [round(a, 1), round(b, 1)] for k, (a, b) in adaptation.areas.items()},
                      "stands_read_before": share(False), "stands_read_after": share(True), "classifier": classifier,
                      "out": str(args.out)}))
    return 0
