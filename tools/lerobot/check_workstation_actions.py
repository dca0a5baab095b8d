"""The actions the workstation recorded for a LeRobot checkpoint (remote.lerobot, with
settings.record set) against LeRobot's own output in one Python process.

For every episode a bridge served (a reset, then one act per step; the exchanges kept byte for
byte under RECORD/bridge-*), the same checkpoint is loaded here by LeRobot's own code
(get_policy_class(...).from_pretrained, make_pre_post_processors), reset and seeded as the
bridge seeds at reset (torch.manual_seed(seed)), and fed the very observations the workstation
sent: every action must be equal to the one the bridge replied. Then each episode's replies must
be, value for value, the actions one run of the ledger recorded (`kosmos-cli export`), each run
matched once; with the policy's clip_to_range on, a recorded action may instead be the reply
clipped to the checkpoint's action range (counted as clipped).

    .lerobot/venv/bin/python tools/lerobot/check_workstation_actions.py CHECKPOINT RECORD \
        --ledger L.kosmos --cli build/bin/kosmos-cli

Prints one JSON object; exits 1 on any difference.
"""

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE / "python"))
from kosmos_world import msgpack_numpy  # noqa: E402


def action_range(folder):
    """The checkpoint's action range as the bridge reported it (its metadata), or None."""
    meta = msgpack_numpy.unpackb((folder / "metadata.msgpack").read_bytes())
    action = meta.get("action", {})
    if "min" in action and "max" in action:
        return np.asarray(action["min"], dtype=np.float64), np.asarray(action["max"],
                                                                        dtype=np.float64)
    return None


def episodes_of(folder):
    """[(seed, instruction, [(observation, instruction), ...], [action, ...]), ...] in order."""
    count = len(list(folder.glob("request-*.msgpack")))
    episodes = []
    for i in range(count):
        request = msgpack_numpy.unpackb((folder / f"request-{i}.msgpack").read_bytes())
        reply_bytes = (folder / f"reply-{i}.msgpack").read_bytes()
        try:
            reply = msgpack_numpy.unpackb(reply_bytes)
        except Exception:
            raise SystemExit(f"{folder}: exchange {i} failed at the bridge:\n"
                             + reply_bytes.decode(errors="replace"))
        kind = request.get("type", "act")
        if kind == "reset":
            episodes.append((int(request["seed"]), request.get("instruction", ""), [], []))
        elif kind == "act":
            if not episodes:
                raise SystemExit(f"{folder}: an act before any reset")
            episodes[-1][2].append((request["observation"], request.get("instruction")))
            episodes[-1][3].append(np.asarray(reply["actions"], dtype=np.float64).reshape(-1))
    return episodes


class InProcess:
    def __init__(self, folder):
        from lerobot.configs.policies import PreTrainedConfig
        from lerobot.policies.factory import get_policy_class, make_pre_post_processors
        config = PreTrainedConfig.from_pretrained(folder)
        config.device = "cpu"
        self.config = config
        self.policy = get_policy_class(config.type).from_pretrained(folder, config=config)
        self.policy.eval()
        self.pre, self.post = make_pre_post_processors(
            config, pretrained_path=folder,
            preprocessor_overrides={"device_processor": {"device": "cpu"}})

    def run(self, seed, instruction, steps):
        self.policy.reset()
        torch.manual_seed(seed % (2 ** 63))
        actions = []
        for observation, step_instruction in steps:
            batch = {}
            for key, feature in self.config.input_features.items():
                value = np.asarray(observation[key])
                if feature.type.value == "VISUAL":  # the workstation sends [H, W, 3] uint8
                    tensor = torch.from_numpy(value.transpose(2, 0, 1).copy()).float() / 255.0
                else:
                    tensor = torch.from_numpy(value.astype(np.float32)).reshape(feature.shape)
                batch[key] = tensor.unsqueeze(0)
            batch["task"] = [step_instruction or instruction]
            with torch.inference_mode():
                action = self.post(self.policy.select_action(self.pre(batch)))
            actions.append(action.to("cpu", torch.float64).numpy().reshape(-1))
        return actions


def ledger_actions(cli, ledger):
    """{run id: [action, ...]} from `kosmos-cli export` (actions.csv, shortest round-trip
    decimals, so exact)."""
    info = subprocess.run([cli, "info", ledger], capture_output=True, text=True, check=True)
    runs = int(next(line.split()[1] for line in info.stdout.splitlines()
                    if line.startswith("runs")))
    out = {}
    with tempfile.TemporaryDirectory() as scratch:
        for run in range(1, runs + 1):
            target = Path(scratch) / str(run)
            done = subprocess.run([cli, "export", ledger, str(run), "--to", str(target)],
                                  capture_output=True, text=True)
            if done.returncode != 0 or not (target / "actions.csv").exists():
                continue
            with open(target / "actions.csv") as f:
                rows = list(csv.reader(f))[1:]
            out[run] = [np.array([float(v) for v in row[2:]]) for row in rows]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint")
    parser.add_argument("record", help="settings.record of the remote.lerobot policy")
    parser.add_argument("--ledger", help="the ledger the runs were recorded in")
    parser.add_argument("--cli", default=str(HERE / "build/bin/kosmos-cli"))
    args = parser.parse_args()
    here = InProcess(args.checkpoint)
    result = {"checkpoint": args.checkpoint, "policy_type": here.config.type, "episodes": 0,
              "actions": 0, "max_abs_difference": 0.0, "ledger_runs_matched": None}
    served_episodes = []
    for folder in sorted(Path(args.record).glob("bridge-*")):
        bounds = action_range(folder)
        for seed, instruction, steps, served in episodes_of(folder):
            local = here.run(seed, instruction, steps)
            diff = max((float(np.abs(a - b).max()) for a, b in zip(served, local)), default=0.0)
            result["episodes"] += 1
            result["actions"] += len(served)
            result["max_abs_difference"] = max(result["max_abs_difference"], diff)
            served_episodes.append((served, bounds))
    equal = result["episodes"] > 0 and result["max_abs_difference"] == 0.0
    if args.ledger:
        runs = ledger_actions(args.cli, args.ledger)
        matched = clipped = 0

        def same(recorded, reply, bounds):
            if np.array_equal(recorded, reply):
                return 0
            if bounds is not None:
                lo, hi = bounds
                narrow = hi - lo <= 0  # a dimension never moved: a sliver of width
                if np.allclose(recorded, np.clip(reply, np.where(narrow, lo - 1e-9, lo),
                                                 np.where(narrow, hi + 1e-9, hi)),
                               rtol=0, atol=1e-12):
                    return 1
            return None

        for served, bounds in served_episodes:
            for run, recorded in list(runs.items()):
                if len(recorded) != len(served):
                    continue
                outcome = [same(a, b, bounds) for a, b in zip(recorded, served)]
                if all(o is not None for o in outcome):
                    matched += 1
                    clipped += sum(outcome)
                    del runs[run]
                    break
        result["ledger_runs_matched"] = f"{matched} of {len(served_episodes)} episodes"
        result["clipped_actions"] = clipped
        equal = equal and matched == len(served_episodes)
    result["equal"] = equal
    print(json.dumps(result, indent=1))
    return 0 if equal else 1


if __name__ == "__main__":
    sys.exit(main())
