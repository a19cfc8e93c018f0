"""Training scripts: ``python -m training.ppo`` (MaskablePPO, see docs/training.md)."""
