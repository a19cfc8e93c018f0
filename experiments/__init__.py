"""Analysis scripts that train nothing: measurements that explain what the trained agents reach and why.

Each module is a command-line script with a ``main`` and an ``Options`` dataclass (each field an ``--option``):

* :mod:`experiments.clairvoyant`: Slabberjan against random, played by a seat that sees every piece.
* :mod:`experiments.clabber_hands`: Clabber against random, hand by hand, split by the side that made trump.
* :mod:`experiments.clabber_ceiling`: the best expected lead a Clabber partnership that sees every card can make
  against random on a deal, by a full search of the hand.

Run them from the repository root, for example ``python -m experiments.clairvoyant --games 4000`` (``--help``
lists each script's options). They are not part of the installed package (the wheel holds ``cardenvs`` only) and
need the ``train`` extra for ``tyro``. docs/experiments.md gives what they found, with the commands that found it.
"""
