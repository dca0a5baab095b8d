#!/usr/bin/env python3
"""Build Kosmos model packages (kosmos-model.json + TorchScript modules) for the torch.* adapters.

  kosmos_export.py package  --family F --module M.pt [--subgoal S.pt] --statistics STATS.json
                            [--key bridge_orig] --out DIR [--prompt-tokens T.json]
                            [--task-tokens T.json] [--options JSON] [--frame WxH]
      Package TorchScript modules you exported (docs/export.md shows how, per family): copies
      them, hashes every file, validates the statistics' keys and dimensions against the
      family's normalization scheme and writes the manifest.

  kosmos_export.py package ... --module M.pt2 --aoti-inputs JSON [--aoti-device cpu|cuda]
                            [--aoti-dtype fp32|bf16|fp16]
      The same for an AOTInductor package you compiled (compile_aoti() in this file does it:
      torch.export + aoti_compile_and_package), with the inputs it was compiled for.

  kosmos_export.py stand-in --family F --out DIR [--instruction TEXT ...] [--size small|large]
                            [--runtime torchscript|aoti] [--device cpu|cuda] [--dtype ...]
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


def write_package(family, modules, statistics, out, options, frame, runtimes=None):
    if family not in FAMILIES:
        fail("unknown family '%s' (%s)" % (family, ", ".join(FAMILIES)))
    kind, _, chunk, roles = FAMILIES[family]
    for role in roles:
        if role not in modules:
            fail("family %s needs a '%s' module" % (family, role))
    os.makedirs(out, exist_ok=True)
    files = {}
    runtimes = runtimes or {}
    for role, source in modules.items():
        name = role + (".pt2" if source.endswith(".pt2") else ".pt")
        target = os.path.join(out, name)
        if os.path.abspath(source) != os.path.abspath(target):
            shutil.copyfile(source, target)
        files[role] = {"path": name, "sha256": sha256(target)}
        files[role].update(runtimes.get(role, {}))
    manifest = {
        "kosmos_model": 1,
        "family": family,
        "signature": SIGNATURE,
        "files": files,
        "action": action_contract(family, statistics),
        "defaults": defaults_of(runtimes),
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


def defaults_of(runtimes):
    """An AOTInductor package runs where it was compiled: its defaults say so."""
    for block in (runtimes or {}).values():
        return {"device": block["device"], "dtype": block["dtype"]}
    return {"device": "cpu", "dtype": "fp32"}


TORCH_DTYPES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}


def aoti_block(args, dynamic, device, dtype):
    """The manifest's runtime block for a compiled module: device, dtype and the inputs it was
    compiled for (-1 where a dimension was exported as dynamic); the C++ adapter checks every
    call against it, since a compiled module does not check its inputs itself."""
    inputs = []
    for i, a in enumerate(args):
        shape = list(a.shape)
        for d in (dynamic[i] or {}) if dynamic else {}:
            shape[d] = -1
        inputs.append({"shape": shape, "dtype": str(a.dtype).replace("torch.", "")})
    return {"runtime": "aoti", "device": device, "dtype": dtype, "inputs": inputs}


def compile_aoti(module, args, dynamic, path, device, dtype):
    """torch.export + AOTInductor: a .pt2 package that C++ loads with AOTIModelPackageLoader.
    It is compiled for one device (a CUDA package needs a GPU here, at export time) and dtype."""
    import torch
    if device == "cuda" and not torch.cuda.is_available():
        fail("--device cuda: compiling an AOTInductor package for CUDA needs a GPU at export time "
             "(this machine has none); compile for cpu here, or export on the GPU machine")
    if not hasattr(torch._inductor, "aoti_compile_and_package"):
        fail("--runtime aoti needs torch >= 2.6 (this is %s; scripts/setup-cuda.sh installs one)"
             % torch.__version__)
    floating = getattr(torch, TORCH_DTYPES[dtype])
    module = module.eval().to(device=device, dtype=floating)
    args = tuple(a.to(device=device, dtype=floating) if a.is_floating_point() else a.to(device)
                 for a in args)
    spec = None
    if dynamic:
        spec = tuple({d: torch.export.Dim("d%d_%d" % (i, d), min=1, max=4096) for d in dims}
                     if dims else None for i, dims in enumerate(dynamic))
    with torch.no_grad():
        program = torch.export.export(module, args, dynamic_shapes=spec)
        torch._inductor.aoti_compile_and_package(program, package_path=path)
    return aoti_block(args, dynamic, device, dtype)


def vla_prompt(family, instruction):
    lower = instruction.lower()
    if family == "openvla":
        return "In: What action should the robot take to %s?\nOut:" % lower
    return ("<|im_start|>user\nWhat action should the robot take to %s?<|im_end|>\n"
            "<|im_start|>assistant\n" % lower)


def stand_in(family, out, instructions, size, runtime="torchscript", device="cpu", dtype="fp32"):
    """Random-weight modules with the family's real signature (docs/export.md), as TorchScript
    or compiled by AOTInductor (runtime "aoti") with the inputs the C++ adapter gives."""
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
    runtimes = {}
    frame = (320, 256) if family == "irasim" else (80, 64) if size == "small" else (320, 256)

    def image(side, frames=None):
        return torch.rand((1, frames, 3, side, side) if frames else (1, 3, side, side))

    def ids(n):
        return torch.ones(1, n, dtype=torch.long)

    def save(role, module, args, dynamic=None):
        # args: the inputs the C++ adapter gives, in its order; dynamic: per input, the
        # dimensions that vary between calls (prompt and token lengths).
        if runtime == "aoti":
            path = os.path.join(out, role + ".pt2")
            runtimes[role] = compile_aoti(module, args, dynamic, path, device, dtype)
        else:
            path = os.path.join(out, role + ".pt")
            torch.jit.script(module).save(path)
        modules[role] = path

    options = {}
    if family in ("openvla", "minivla"):
        vocab = 32000 if family == "openvla" else 151936
        options = {"vocab_size": vocab, "prompt_tokens": {}}
        for k, text in enumerate(instructions):
            options["prompt_tokens"][vla_prompt(family, text)] = [1, 100 + k, 200 + k]
        save("module", Vla(vocab), (image(224), ids(3)), [None, [1]])
    elif family == "octo":
        options = {"task_tokens": {t: [3 + k] * 16 for k, t in enumerate(instructions)}}
        save("module", Octo(), (image(256, 2), image(128, 2), torch.ones(1, 2, dtype=torch.bool),
                                ids(16)))
    elif family == "openpizero":
        options = {"prompt_tokens": {t: [2, 5 + k] for k, t in enumerate(instructions)}}
        save("module", PiZero(), (image(224), torch.zeros(1, 7), ids(2)), [None, None, [1]])
    elif family in ("susie", "susie_ll"):
        if family == "susie":
            options = {"prompt_tokens": {t: [4, 6 + k] for k, t in enumerate(instructions)}}
            save("subgoal", Subgoal(), (image(256), ids(2)), [None, [1]])
        save("module", Susie(), (image(256, 2), image(256)))
    else:
        options = {"action_scale": 20.0, "sampling_steps": 35, "guidance": 7.0}
        width, height = frame
        save("module", World(), (torch.rand(1, 3, height, width), torch.zeros(1, chunk, 7),
                                 torch.zeros(1, dtype=torch.long), torch.full((1,), 35),
                                 torch.full((1,), 7.0)))
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
    return write_package(family, modules, statistics, out, options, frame, runtimes)


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
    p.add_argument("--aoti-inputs", help="a .pt2 module you compiled (compile_aoti() below, or "
                   "torch._inductor.aoti_compile_and_package): JSON list of its inputs, "
                   "[{\"shape\": [1, 3, 224, 224], \"dtype\": \"float32\"}, ...], -1 for a "
                   "dynamic dimension")
    p.add_argument("--aoti-device", choices=["cpu", "cuda"], default="cpu",
                   help="the device the .pt2 was compiled for")
    p.add_argument("--aoti-dtype", choices=sorted(TORCH_DTYPES), default="fp32",
                   help="the dtype the .pt2 was compiled for")
    s = sub.add_parser("stand-in")
    s.add_argument("--family", required=True, choices=sorted(FAMILIES))
    s.add_argument("--out", required=True)
    s.add_argument("--instruction", action="append", default=[])
    s.add_argument("--size", choices=["small", "large"], default="small")
    s.add_argument("--runtime", choices=["torchscript", "aoti"], default="torchscript",
                   help="aoti: compile with torch.export + AOTInductor (.pt2; torch >= 2.6)")
    s.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                   help="aoti: the device the package is compiled for (cuda needs a GPU here)")
    s.add_argument("--dtype", choices=sorted(TORCH_DTYPES), default="fp32",
                   help="aoti: the dtype the package is compiled for")
    args = parser.parse_args(argv)

    if args.command == "stand-in":
        manifest = stand_in(args.family, args.out, args.instruction, args.size, args.runtime,
                            args.device, args.dtype)
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
        runtimes = {}
        if args.module.endswith(".pt2"):
            if not args.aoti_inputs:
                fail("--module %s is an AOTInductor package: --aoti-inputs must list the inputs "
                     "it was compiled for (a compiled module does not check them)" % args.module)
            inputs = json.loads(args.aoti_inputs)
            if not isinstance(inputs, list) or not inputs or not all(
                    isinstance(i, dict) and isinstance(i.get("shape"), list)
                    and i.get("dtype") in ("float32", "bfloat16", "float16", "int64", "bool")
                    for i in inputs):
                fail("--aoti-inputs: expected [{\"shape\": [...], \"dtype\": float32|bfloat16|"
                     "float16|int64|bool}, ...]")
            runtimes["module"] = {"runtime": "aoti", "device": args.aoti_device,
                                  "dtype": args.aoti_dtype, "inputs": inputs}
        elif args.aoti_inputs:
            fail("--aoti-inputs is for a .pt2 module; %s is TorchScript" % args.module)
        width, height = (int(v) for v in args.frame.lower().split("x"))
        manifest = write_package(args.family, modules, statistics, args.out, options,
                                 (width, height), runtimes)
    print("wrote %s (%s, %d files)" % (os.path.join(args.out, "kosmos-model.json"),
                                        manifest["family"], len(manifest["files"])))


if __name__ == "__main__":
    main(sys.argv[1:])
