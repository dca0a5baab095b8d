"""Kosmos Workstation's reference world server (docs/remote-worlds.md)."""

__version__ = "0.1.0"
