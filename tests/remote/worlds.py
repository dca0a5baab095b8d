"""Toy worlds for the remote.world tests (tests/remote/tst_remote_world.cpp), served by the
reference server: python3 -m kosmos_world model worlds:ShiftWorld --args '{...}'.

ShiftWorld is deterministic, so the test recomputes every frame on its own: the start image is
pixel (y, x, c) = (3x + 5y + 40c + seed) mod 256 (or the frame it is given), and each action
rolls the current image by (round(100 * a[1]), round(100 * a[0])) pixels (rows, columns). As a
"simulator" it reports success once `success_after` steps have run, and its state (the total
shift). Faults on request: raise at a step, sleep in every step, die (the process exits) at a
step, or answer frames of the wrong size."""

import os
import time

import numpy as np

NAMES = ["dx", "dy", "dz", "droll", "dpitch", "dyaw", "gripper"]


class ShiftWorld:
    def __init__(self, width=64, height=48, kind="simulator", success_after=None, raise_at=None,
                 sleep_s=0.0, die_at=None, wrong_size_at=None, rate=5.0, chunk_lengths=()):
        self.width, self.height, self.kind = width, height, kind
        self.success_after, self.raise_at, self.sleep_s = success_after, raise_at, sleep_s
        self.die_at, self.wrong_size_at = die_at, wrong_size_at
        self.rate, self.chunk_lengths = rate, list(chunk_lengths)
        self.image = None
        self.steps = 0
        self.shift = [0, 0]

    def metadata(self):
        return {"kind": self.kind, "name": "shift-world", "env_id": "kosmos-test/ShiftWorld-v0",
                "versions": {"shift-world": "1.0"},
                "action": {"names": NAMES, "min": [-0.05] * 3 + [-0.25] * 3 + [0.0],
                           "max": [0.05] * 3 + [0.25] * 3 + [1.0],
                           "units": ["m"] * 3 + ["rad"] * 3 + ["1"]},
                "frame": {"width": self.width, "height": self.height},
                "control_rate_hz": self.rate, "chunk_lengths": self.chunk_lengths,
                "provenance": {"model": "shift-world", "checkpoint_sha256": "0" * 64}}

    def reset(self, frame, instruction, seed, start_state):
        if frame is not None:
            self.image = np.array(frame, dtype=np.uint8)
        else:
            y, x = np.mgrid[0:self.height, 0:self.width]
            self.image = np.stack([(3 * x + 5 * y + 40 * c + seed) % 256 for c in range(3)],
                                  -1).astype(np.uint8)
        self.steps = 0
        self.shift = [0, 0]
        return self.image[None].copy()

    def step(self, actions):
        frames = []
        for a in actions:
            self.steps += 1
            if self.raise_at is not None and self.steps == self.raise_at:
                raise RuntimeError(f"boom at step {self.steps}")
            if self.die_at is not None and self.steps == self.die_at:
                os._exit(3)
            if self.sleep_s:
                time.sleep(self.sleep_s)
            dy, dx = int(round(100 * a[1])), int(round(100 * a[0]))
            self.shift = [self.shift[0] + dy, self.shift[1] + dx]
            self.image = np.roll(self.image, (dy, dx), axis=(0, 1))
            frames.append(self.image.copy())
        out = np.stack(frames)
        if self.wrong_size_at is not None and self.steps >= self.wrong_size_at:
            out = out[:, :-1]
        return out

    def success(self):
        if self.kind != "simulator" or self.success_after is None:
            return None
        return self.steps >= self.success_after

    def state(self):
        return {"shift": self.shift, "steps": self.steps}

    def proprio(self):
        # An end effector for the scripted policy: x, y from the shift, z, yaw, gripper.
        return [self.shift[1] / 100.0, self.shift[0] / 100.0, 0.1, 0.0, 1.0]
