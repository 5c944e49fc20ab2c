"""A synthetic overhead camera: realistic frames of any table state, for tests, the bench and the demo.

This room renders; it never reads. The reader (the rest of `vision`) must not import it, so a renderer
for tests can never leak into what decides a reading. `vision.synth.qr` draws the front camera's
synthetic card photos.
"""

from vision.synth.renderer import STARTER_TEXTURE, TABLE_BGR, Renderer
from vision.synth.scene import RenderTruth, SlotCard, TableScene, Token

__all__ = ["STARTER_TEXTURE", "TABLE_BGR", "RenderTruth", "Renderer", "SlotCard", "TableScene", "Token"]
