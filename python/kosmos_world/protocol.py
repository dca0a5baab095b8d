"""What a Python world model implements to be served to Kosmos (docs/remote-worlds.md).

A world model is any object with these methods and attributes; `kosmos_world.server` serves it:

    class MyWorld:
        def metadata(self) -> dict: ...              # see WorldModel.metadata below
        def reset(self, frame, instruction, seed, start_state) -> np.ndarray: ...
        def step(self, actions) -> np.ndarray: ...

`reset` gets the start frame (uint8 [H, W, 3], RGB; None for a simulator, which draws its own
start from the seed), the instruction, the seed (int) and the start state (a dict, possibly
empty) and returns the conditioning frames, uint8 [N, H, W, 3] (N >= 1). `step` gets a chunk of
actions, float64 [T, D], and returns T frames, uint8 [T, H, W, 3]. Optional: `state()` (a dict of
the simulator's state after the last call, recorded per step), `success()` (True/False/None: the
episode's success by the environment's own definition, reported after every call), `reward()`,
`done()`, `proprio()` (float values a policy reads of the robot's own state: an end effector's
position, joint angles).
"""

from typing import Optional, Protocol

import numpy as np


class WorldModel(Protocol):
    def metadata(self) -> dict:
        """{"kind": "simulator" | "learned_model", "name": str,
            "action": {"names": [str], "min": [float], "max": [float], "units": [str]},
            "frame": {"width": int, "height": int},
            "control_rate_hz": float,
            "chunk_lengths": [int],          # certified chunk lengths; [] = any
            "provenance": {...}}             # what it runs: checkpoints, digests, versions"""

    def reset(self, frame: Optional[np.ndarray], instruction: str, seed: int,
              start_state: dict) -> np.ndarray: ...

    def step(self, actions: np.ndarray) -> np.ndarray: ...
