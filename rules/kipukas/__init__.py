"""Kipukas (rule book seed 000): the card catalog, card identity from QR payloads, the map model and its
graph queries, the game state machine (`game.Game`), combat arithmetic and deck validation, and
`adapter.KipukasGame`, the engine behind the game interface of `rules.core`.

When `scripts/build_rules.py` has compiled this package's modules with mypyc from exactly the sources here,
their folder is put first on the package's search path, so the compiled modules load instead of the
interpreted ones (`compiled.py` says when; the games are identical either way).
"""

import os

from rules.kipukas.compiled import native_dir, package_dir

_native = native_dir(package_dir(), os.environ)
if _native is not None:
    __path__.insert(0, str(_native))
