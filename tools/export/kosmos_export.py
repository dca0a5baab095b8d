#!/usr/bin/env python3
"""Build Kosmos model packages (kosmos-model.json + TorchScript modules) for the torch.* adapters.

  kosmos_export.py package  --family F --module M.pt [--subgoal S.pt] --statistics STATS.json
                            [--key bridge_orig] --out DIR [--prompt-tokens T.json]
                            [--task-tokens T.json] [--options JSON] [--frame WxH]
      Package TorchScript modules you exported (docs/export.md shows how, per family): copies
      them, hashes every file, validates the statistics' keys and dimensions against the
      family's normalization scheme and writes the manifest.

  kosmos_export.py stand-in --family F --out DIR [--instruction TEXT ...] [--size small|large]
      A package whose modules have the family's real signature and random weights: what CI uses
      to prove that this exporter's output loads and runs in the C++ adapters, and what
      tools/gpu-check.sh times on a GPU (--size large).

Everything the C++ side checks is checked here first, with the same words, so a package that
this script writes is one the adapter loads.
"""

import argparse
import hashlib
import json
import os
import shutil
import sys

SIGNATURE = 1

# family -> (kind, normalization scheme, chunk length, module roles)
FAMILIES = {
    "openvla": ("policy", "bounds_q99", 1, ["module"]),
    "minivla": ("policy", "bounds_q99", 1, ["module"]),
    "octo": ("policy", "normal", 4, ["module"]),
    "openpizero": ("policy", "bounds", 4, ["module"]),
    "susie": ("policy", "normal", 4, ["module", "subgoal"]),
    "susie_ll": ("policy", "normal", 4, ["module"]),
    "cosmos": ("world_model", "none", 12, ["module"]),
    "irasim": ("world_model", "none", 15, ["module"]),
}
SCHEME_KEYS = {"bounds_q99": ("q01", "q99"), "bounds": ("p01", "p99"), "normal": ("mean", "std")}

BRIDGE_DIMENSIONS = [
    {"name": "dx", "unit": "m", "min": -0.05, "max": 0.05},
    {"name": "dy", "unit": "m", "min": -0.05, "max": 0.05},
    {"name": "dz", "unit": "m", "min": -0.05, "max": 0.05},
    {"name": "droll", "unit": "rad", "min": -0.25, "max": 0.25},
    {"name": "dpitch", "unit": "rad", "min": -0.25, "max": 0.25},
    {"name": "dyaw", "unit": "rad", "min": -0.25, "max": 0.25},
    {"name": "gripper", "unit": "1", "min": 0.0, "max": 1.0},
]


def fail(message):
    print("kosmos_export: " + message, file=sys.stderr)
    sys.exit(2)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def action_contract(family, statistics):
    kind, scheme, chunk, _ = FAMILIES[family]
    contract = {
        "dimensions": BRIDGE_DIMENSIONS,
        "chunk_length": chunk,
        "gripper_index": 6,
        "gripper_convention": "zero_closed_one_open",
        "control_rate_hz": 5.0,
        "normalization": {"scheme": scheme, "statistics": {}},
    }
    if scheme == "none":
        return contract
    first, second = SCHEME_KEYS[scheme]
    for key in (first, second):
        if key not in statistics:
            fail("statistics: scheme %s expects key '%s', statistics have [%s]"
                 % (scheme, key, ", ".join(sorted(statistics))))
        if len(statistics[key]) != 7:
            fail("statistics '%s' have %d values for a 7-D action" % (key, len(statistics[key])))
        contract["normalization"]["statistics"][key] = [float(v) for v in statistics[key]]
    mask = statistics.get("mask")
    if mask is None:
        fail("statistics: no 'mask': the gripper (dimension 6) must be excluded from "
             "normalization")
    if len(mask) != 7 or mask[6]:
        fail("statistics 'mask' must have 7 entries with the gripper (6) false")
    contract["normalization"]["mask"] = [bool(v) for v in mask]
    return contract


def write_package(family, modules, statistics, out, options, frame):
    if family not in FAMILIES:
        fail("unknown family '%s' (%s)" % (family, ", ".join(FAMILIES)))
    kind, _, chunk, roles = FAMILIES[family]
    for role in roles:
        if role not in modules:
            fail("family %s needs a '%s' module" % (family, role))
    os.makedirs(out, exist_ok=True)
    files = {}
    for role, source in modules.items():
        target = os.path.join(out, role + ".pt")
        if os.path.abspath(source) != os.path.abspath(target):
            shutil.copyfile(source, target)
        files[role] = {"path": role + ".pt", "sha256": sha256(target)}
    manifest = {
        "kosmos_model": 1,
        "family": family,
        "signature": SIGNATURE,
        "files": files,
        "action": action_contract(family, statistics),
        "defaults": {"device": "cpu", "dtype": "fp32"},
        "options": options,
        "exported_with": "tools/export/kosmos_export.py",
    }
    if kind == "world_model":
        width, height = frame
        if family == "irasim" and (width, height) != (320, 256):
            fail("IRASim generates 256x320 frames")
        manifest["frame"] = {
            "width": width, "height": height, "channels": 3, "dtype": "uint8", "fps": 4.0,
            "conditioning_frames": 1, "frames_per_action": 1,
            "result_includes_conditioning": True, "certified_chunk_lengths": [chunk],
            "padding_rule": "none",
        }
    with open(os.path.join(out, "kosmos-model.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    return manifest


def vla_prompt(family, instruction):
    lower = instruction.lower()
    if family == "openvla":
        return "In: What action should the robot take to %s?\nOut:" % lower
    return ("<|im_start|>user\nWhat action should the robot take to %s?<|im_end|>\n"
            "<|im_start|>assistant\n" % lower)


def stand_in(family, out, instructions, size):
    """Random-weight modules with the family's real signature (docs/export.md)."""
    import torch
    from torch import Tensor, nn

    torch.manual_seed(0)
    width = 64 if size == "small" else 1024

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 16, 8, stride=8)
            self.fc = nn.Linear(16, width)

        def forward(self, image: Tensor) -> Tensor:
            return self.fc(self.conv(image).mean(dim=(2, 3)))

    class Vla(nn.Module):
        def __init__(self, vocab: int):
            super().__init__()
            self.vocab = vocab
            self.encoder = Encoder()
            self.embed = nn.Embedding(4096, width)  # ids hashed: a small stand-in
            self.head = nn.Linear(width, 128)

        def forward(self, pixel_values: Tensor, input_ids: Tensor) -> Tensor:
            h = self.encoder(pixel_values) + self.embed(input_ids % 4096).mean(dim=1)
            action_logits = self.head(torch.tanh(h))
            # Only action tokens get logits above the rest, and only those that decode to
            # values >= 0 (ids vocab-256 .. vocab-129), so a random stand-in keeps the gripper
            # in Bridge's [0, 1].
            logits = torch.full([1, self.vocab], -1e4, dtype=action_logits.dtype,
                                device=action_logits.device)
            logits[:, self.vocab - 256:self.vocab - 128] = action_logits
            return logits

    class ChunkPolicy(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = Encoder()
            self.head = nn.Linear(width, 28)

        def forward(self, image: Tensor) -> Tensor:
            out = torch.tanh(self.head(self.encoder(image))).view(1, 4, 7) * 0.5
            gripper = torch.sigmoid(out[:, :, 6:7] * 4.0)
            return torch.cat([out[:, :, :6], gripper], dim=2)

    class Octo(nn.Module):
        def __init__(self):
            super().__init__()
            self.policy = ChunkPolicy()

        def forward(self, image_primary: Tensor, image_wrist: Tensor, pad_mask: Tensor,
                    task_tokens: Tensor) -> Tensor:
            return self.policy(image_primary[:, -1])

    class PiZero(nn.Module):
        def __init__(self):
            super().__init__()
            self.policy = ChunkPolicy()

        def forward(self, image: Tensor, proprio: Tensor, tokens: Tensor) -> Tensor:
            return self.policy(image)

    class Subgoal(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 3, 3, padding=1)

        def forward(self, image: Tensor, tokens: Tensor) -> Tensor:
            return torch.sigmoid(self.conv(image))

    class Susie(nn.Module):
        def __init__(self):
            super().__init__()
            self.policy = ChunkPolicy()

        def forward(self, obs: Tensor, goal: Tensor) -> Tensor:
            return self.policy(goal - obs[:, -1])

    class World(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 3, 3, padding=1)
            self.act = nn.Linear(7, 3)

        def forward(self, frame: Tensor, actions: Tensor, seed: Tensor, steps: Tensor,
                    guidance: Tensor) -> Tensor:
            n = actions.size(1)
            frames = []
            x = frame
            for i in range(n):
                shift = torch.tanh(self.act(actions[:, i])).view(1, 3, 1, 1) * 0.02
                x = torch.clamp(x + 0.05 * torch.tanh(self.conv(x)) + shift, 0.0, 1.0)
                frames.append(x)
            return torch.stack(frames, dim=1)

    kind, scheme, chunk, roles = FAMILIES[family]
    os.makedirs(out, exist_ok=True)
    modules = {}
    options = {}
    if family in ("openvla", "minivla"):
        vocab = 32000 if family == "openvla" else 151936
        options = {"vocab_size": vocab, "prompt_tokens": {}}
        for k, text in enumerate(instructions):
            options["prompt_tokens"][vla_prompt(family, text)] = [1, 100 + k, 200 + k]
        torch.jit.script(Vla(vocab)).save(os.path.join(out, "module.pt"))
    elif family == "octo":
        options = {"task_tokens": {t: [3 + k] * 16 for k, t in enumerate(instructions)}}
        torch.jit.script(Octo()).save(os.path.join(out, "module.pt"))
    elif family == "openpizero":
        options = {"prompt_tokens": {t: [2, 5 + k] for k, t in enumerate(instructions)}}
        torch.jit.script(PiZero()).save(os.path.join(out, "module.pt"))
    elif family in ("susie", "susie_ll"):
        if family == "susie":
            options = {"prompt_tokens": {t: [4, 6 + k] for k, t in enumerate(instructions)}}
            torch.jit.script(Subgoal()).save(os.path.join(out, "subgoal.pt"))
        torch.jit.script(Susie()).save(os.path.join(out, "module.pt"))
    else:
        options = {"action_scale": 20.0, "sampling_steps": 35, "guidance": 7.0}
        torch.jit.script(World()).save(os.path.join(out, "module.pt"))
    for role in roles:
        modules[role] = os.path.join(out, role + ".pt")
    statistics = {}
    if scheme in SCHEME_KEYS:
        first, second = SCHEME_KEYS[scheme]
        if scheme == "normal":
            statistics = {"mean": [0.0] * 6 + [0.5], "std": [0.01] * 3 + [0.05] * 3 + [1.0]}
        else:
            statistics = {first: [-0.02] * 3 + [-0.1] * 3 + [0.0],
                          second: [0.02] * 3 + [0.1] * 3 + [1.0]}
        statistics["mask"] = [True] * 6 + [False]
    options["stand_in"] = "random weights, real signature (kosmos_export.py stand-in --size %s)" % size
    frame = (320, 256) if family == "irasim" else (80, 64) if size == "small" else (320, 256)
    return write_package(family, modules, statistics, out, options, frame)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("package")
    p.add_argument("--family", required=True, choices=sorted(FAMILIES))
    p.add_argument("--module", required=True)
    p.add_argument("--subgoal")
    p.add_argument("--statistics", help="dataset_statistics.json (OpenVLA/Octo layout) or a flat "
                                        "{q01, q99, mask} object")
    p.add_argument("--key", help="the unnorm key, e.g. bridge_orig")
    p.add_argument("--prompt-tokens", help="JSON {prompt: [ids]} made with the model's tokenizer")
    p.add_argument("--task-tokens", help="Octo: JSON {instruction: [16 T5 ids]}")
    p.add_argument("--options", default="{}", help="extra options JSON (vocab_size, ...)")
    p.add_argument("--frame", default="320x256", help="world models: WIDTHxHEIGHT")
    p.add_argument("--out", required=True)
    s = sub.add_parser("stand-in")
    s.add_argument("--family", required=True, choices=sorted(FAMILIES))
    s.add_argument("--out", required=True)
    s.add_argument("--instruction", action="append", default=[])
    s.add_argument("--size", choices=["small", "large"], default="small")
    args = parser.parse_args(argv)

    if args.command == "stand-in":
        manifest = stand_in(args.family, args.out, args.instruction, args.size)
    else:
        statistics = {}
        if args.statistics:
            with open(args.statistics) as f:
                stats = json.load(f)
            if args.key:
                if args.key not in stats:
                    fail("statistics: no unnorm key '%s' (keys: %s)"
                         % (args.key, ", ".join(sorted(stats))))
                stats = stats[args.key]
            statistics = stats.get("action", stats)
        modules = {"module": args.module}
        if args.subgoal:
            modules["subgoal"] = args.subgoal
        options = json.loads(args.options)
        for flag, key in ((args.prompt_tokens, "prompt_tokens"), (args.task_tokens, "task_tokens")):
            if flag:
                with open(flag) as f:
                    options[key] = json.load(f)
        width, height = (int(v) for v in args.frame.lower().split("x"))
        manifest = write_package(args.family, modules, statistics, args.out, options,
                                 (width, height))
    print("wrote %s (%s, %d files)" % (os.path.join(args.out, "kosmos-model.json"),
                                        manifest["family"], len(manifest["files"])))


if __name__ == "__main__":
    main(sys.argv[1:])
