"""Training: the self-play trainer (``cardenvs train GAME``), MaskablePPO and Ray RLlib adapters; docs/training.md."""
