"""Room 5, what the web sees: the implementation of `tracker.api.TableService`.

`service` authenticates viewers and takes their inputs onto the table; `views` projects the state for each
viewer (hidden cards only to their owner and judges, a delayed view for spectators); `seats` names viewers.

May import: `tracker.table`, `tracker.record`, `tracker.overhead`, `rules`, `tracker.errors`. Never `web`.
"""
