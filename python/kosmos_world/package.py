"""A Kosmos generic world-model package (kosmos-model.json, family generic_world_model: a
TorchScript module and its contracts, docs/export.md) served from Python: what the native
adapter torch.generic_world_model does, done by torch in this process, so a package can run on a
machine the workstation reaches only through remote.world (a GPU server with its own torch), and
so the Python path of a world model can be checked against the native one.

    python -m kosmos_world model kosmos_world.package:PackageWorld \
        --args '{"package": "models/world", "device": "cpu"}'

As the native adapter: actions are normalized by the contract's statistics, the module sees the
last frames it declares (the first repeated in front while there are fewer), the commanded state
it keeps (io.proprio) after each action of the chunk, the instruction's index in its vocabulary;
its output is mapped back to bytes by io.pixels (v * std + mean, times 255, rounded half away
from zero, clamped; not a number -> 0) in float32 as the adapter does.
"""

import hashlib
import json
import os
from collections import deque

import numpy as np


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class PackageWorld:
    def __init__(self, package, device="cpu", threads=0):
        import torch  # the server itself needs no torch; this world does
        self.torch = torch
        if threads:
            torch.set_num_threads(int(threads))
        self.package = os.path.abspath(package)
        manifest_path = os.path.join(self.package, "kosmos-model.json")
        with open(manifest_path) as f:
            manifest = json.load(f)
        if manifest.get("family") != "generic_world_model":
            raise ValueError(f"{manifest_path}: family {manifest.get('family')!r}, expected "
                             "generic_world_model")
        module = manifest["files"]["module"]
        module_path = os.path.join(self.package, module["path"])
        digest = sha256_file(module_path)
        if digest != module["sha256"]:
            raise ValueError(f"{module_path}: SHA-256 {digest}, the manifest says "
                             f"{module['sha256']}")
        self.device = torch.device(device)
        self.module = torch.jit.load(module_path, map_location=self.device).eval()
        self.manifest, self.io = manifest, manifest["io"]
        self.action, self.frame = manifest["action"], manifest["frame"]
        self.chunk = int(self.action["chunk_length"])
        self.width, self.height = int(self.frame["width"]), int(self.frame["height"])
        pixels = self.io.get("pixels", {})
        self.pixel_mean = np.asarray(pixels.get("mean", [0.0, 0.0, 0.0]), dtype=np.float32)
        self.pixel_std = np.asarray(pixels.get("std", [1.0, 1.0, 1.0]), dtype=np.float32)
        norm = self.action.get("normalization", {"scheme": "none"})
        self.scheme = norm.get("scheme", "none")
        if self.scheme not in ("none", "normal"):
            raise ValueError(f"{manifest_path}: action.normalization.scheme {self.scheme!r}: "
                             "this server normalizes none and normal")
        stats = norm.get("statistics", {})
        dims = len(self.action["dimensions"])
        self.mean = np.asarray(stats.get("mean", [0.0] * dims), dtype=np.float64)
        self.std = np.asarray(stats.get("std", [1.0] * dims), dtype=np.float64)
        self.mask = np.asarray(norm.get("mask") or [True] * dims, dtype=bool)
        self.provenance = {"package": self.package, "manifest_sha256": sha256_file(manifest_path),
                           "module_sha256": digest, "torch": torch.__version__,
                           "device": str(self.device)}
        self.frames = deque(maxlen=16)
        self.state = None
        self.instruction = 0

    def metadata(self):
        dims = self.action["dimensions"]
        return {"kind": "learned_model",
                "name": os.path.basename(self.package.rstrip("/")),
                "versions": {"torch": self.torch.__version__},
                "action": {"names": [d["name"] for d in dims],
                           "min": [float(d["min"]) for d in dims],
                           "max": [float(d["max"]) for d in dims],
                           "units": [d.get("unit", "") for d in dims]},
                "frame": {"width": self.width, "height": self.height},
                "control_rate_hz": float(self.action["control_rate_hz"]),
                "chunk_lengths": [self.chunk],
                "provenance": self.provenance}

    def reset(self, frame, instruction, seed, start_state):
        if frame is None:
            raise ValueError("a learned world model starts from a frame; none was given")
        frame = np.asarray(frame, dtype=np.uint8)
        if frame.shape != (self.height, self.width, 3):
            raise ValueError(f"the start frame is {list(frame.shape)}, the package's "
                             f"{[self.height, self.width, 3]} (remote.world sends it resized)")
        proprio = self.io.get("proprio")
        self.state = list(map(float, proprio["start"])) if proprio else None
        if "vocabulary" in self.io and any(i["source"] == "instruction_id"
                                           for i in self.io["inputs"]):
            if instruction not in self.io["vocabulary"]:
                raise ValueError(f"the model was not trained on the instruction {instruction!r}")
            self.instruction = self.io["vocabulary"].index(instruction)
        self.frames.clear()
        self.frames.append(frame)
        return frame[None].copy()

    def _pixels(self, images):
        chw = np.stack([np.asarray(i, dtype=np.float32) / np.float32(255.0) for i in images])
        chw = (chw - self.pixel_mean) / self.pixel_std  # [n, H, W, 3]
        return self.torch.from_numpy(np.ascontiguousarray(chw.transpose(0, 3, 1, 2)))

    def step(self, actions):
        torch = self.torch
        actions = np.asarray(actions, dtype=np.float64)
        if actions.shape != (self.chunk, len(self.mean)):
            raise ValueError(f"a chunk of {list(actions.shape)}; the package takes "
                             f"[{self.chunk}, {len(self.mean)}]")
        normalized = actions.copy()
        if self.scheme == "normal":
            normalized[:, self.mask] = (actions[:, self.mask] - self.mean[self.mask]) \
                / self.std[self.mask]
        proprio = self.io.get("proprio")
        trajectory = []
        if proprio:
            state = list(self.state)
            for a in actions:
                for i in proprio.get("integrate", []):
                    v = state[i["state"]] + a[i["action"]]
                    state[i["state"]] = min(max(v, i["min"]), i["max"])
                for c in proprio.get("copy", []):
                    state[c["state"]] = a[c["action"]]
                trajectory.append(list(state))
        inputs = []
        for spec in self.io["inputs"]:
            source, shape = spec["source"], spec.get("shape")
            if source == "frames":
                count = shape[1]
                history = list(self.frames)
                chosen = [history[max(len(history) - i, 0)] for i in range(count, 0, -1)]
                inputs.append(self._pixels(chosen).unsqueeze(0))
            elif source == "image":
                inputs.append(self._pixels([self.frames[-1]]))
            elif source == "actions":
                inputs.append(torch.from_numpy(normalized.astype(np.float32))[None])
            elif source == "proprio":
                inputs.append(torch.tensor(trajectory, dtype=torch.float32)[None])
            elif source == "instruction_id":
                inputs.append(torch.tensor([self.instruction], dtype=torch.long))
            else:
                raise ValueError(f"io input {spec.get('name')!r}: source {source!r} is not "
                                 "served here")
        with torch.inference_mode():
            out = self.module(*[t.to(self.device) for t in inputs]).to("cpu", torch.float32)
        out = out.reshape(self.chunk, 3, self.height, self.width).numpy()
        unit = out.transpose(0, 2, 3, 1) * self.pixel_std + self.pixel_mean  # float32
        scaled = unit * np.float32(255.0)
        byte = np.where(np.isfinite(scaled), np.sign(scaled) * np.floor(np.abs(scaled) + 0.5), 0)
        frames = np.clip(byte, 0, 255).astype(np.uint8)
        if proprio:
            self.state = state
        for f in frames:
            self.frames.append(f)
        return frames

    def proprio(self):
        return self.state
