"""Kosmos Workstation's policy bridges: a policy from another framework behind a websocket the
workstation speaks (docs/remote-policies.md, "LeRobot policies")."""

__version__ = "0.1.0"
