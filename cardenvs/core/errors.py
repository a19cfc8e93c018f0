"""Errors raised by cardenvs environments."""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action that is out of range or not legal for the agent to act.

    Raised before anything changes: the environment is exactly as it was before the call.
    """
