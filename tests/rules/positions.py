"""Hand-made positions shared by the notation and validation tests."""

# A valid setup of the default card set, in canonical form (columns aligned).
SETUP_TEXT = """\
sensor-ghosts setup
7: Ee   Ab   -Ea Ae*v Oo
6: Eb   Aa   Oe  -Ae  Ob*v
5: Ea   Ao*r -Ba Oe   Oa
4: Ea   Be   Ae  Oo*v Ab
3: Eo*r Bb   Aa  Oa   Ao
2: Eo   Ba   Ae  Oe   Eo
1: S    S    Ee  Ea   Bo
players: 1
difficulty: standard
options: none
cards: default
commands: default
"""
