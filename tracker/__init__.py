"""The appliance: frame sources, the table loop that joins `vision` and `rules`, and the command line.

`tracker` may import every other package of the project; `web` imports only `tracker.api`.
"""
