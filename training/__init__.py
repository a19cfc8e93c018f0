"""Training scripts: ``python -m training.ppo`` (MaskablePPO, see docs/training.md) and ``python -m
training.rllib_train`` (Ray RLlib, docs/rllib.md); from another directory, ``python PATH/TO/training/ppo.py``."""
