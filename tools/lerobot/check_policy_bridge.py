"""The LeRobot policy bridge (python/kosmos_serve/lerobot_policy.py) against LeRobot itself: a
checkpoint folder (tools/lerobot/make_policy_checkpoints.py) served by the bridge and driven over
its websocket, one request a step, with a recorded episode's observations (LeRobot's PushT
fixture, frames as uint8); then the same checkpoint loaded in this process by LeRobot's own code
(get_policy_class(...).from_pretrained, make_pre_post_processors, select_action every step,
seeded as the bridge seeds at reset), fed the same observations. Every action must be equal.

    .lerobot/venv/bin/python tools/lerobot/check_policy_bridge.py CHECKPOINT_DIR \
        [--dataset tests/fixtures/lerobot/pusht-h264] [--episode 0] [--steps 20] [--seed 11]

Prints one JSON object; exits 1 on any difference.
"""

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch
import websockets

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE / "python"))
from kosmos_world import msgpack_numpy  # noqa: E402

TASK = "Push the T-shaped block onto the T-shaped target."


def observations(dataset, episode, steps):
    from lerobot.datasets.lerobot_dataset import LeRobotDataset
    ds = LeRobotDataset("kosmos/check", root=dataset, episodes=[episode], video_backend="pyav")
    out = []
    for i in range(min(steps, len(ds))):
        item = ds[i]
        image = (item["observation.image"].numpy() * 255.0).round().clip(0, 255).astype(np.uint8)
        out.append({"observation.image": image.transpose(1, 2, 0).copy(),  # HWC, as a world sends
                    "observation.state": item["observation.state"].numpy().astype(np.float32)})
    return out


async def through_bridge(url, obs, seed):
    packer = msgpack_numpy.Packer()
    actions, timing = [], []
    async with websockets.connect(url, max_size=None, compression=None) as ws:
        metadata = msgpack_numpy.unpackb(await ws.recv())
        await ws.send(packer.pack({"type": "reset", "seed": seed, "instruction": TASK}))
        msgpack_numpy.unpackb(await ws.recv())
        for o in obs:
            started = time.perf_counter()
            await ws.send(packer.pack({"type": "act", "observation": o}))
            reply = await ws.recv()
            if isinstance(reply, str):
                raise SystemExit("the bridge failed:\n" + reply)
            reply = msgpack_numpy.unpackb(reply)
            timing.append((time.perf_counter() - started) * 1000)
            actions.append(np.asarray(reply["actions"])[0])
    return metadata, np.asarray(actions), timing


def in_process(folder, obs, seed):
    from lerobot.configs.policies import PreTrainedConfig
    from lerobot.policies.factory import get_policy_class, make_pre_post_processors
    config = PreTrainedConfig.from_pretrained(folder)
    config.device = "cpu"
    policy = get_policy_class(config.type).from_pretrained(folder, config=config)
    policy.eval()
    pre, post = make_pre_post_processors(config, pretrained_path=folder,
                                         preprocessor_overrides={"device_processor":
                                                                 {"device": "cpu"}})
    policy.reset()
    torch.manual_seed(seed)
    actions = []
    for o in obs:
        batch = {"observation.image": torch.from_numpy(
                     o["observation.image"].transpose(2, 0, 1).copy()).float().div(255.0)[None],
                 "observation.state": torch.from_numpy(o["observation.state"])[None],
                 "task": [TASK]}
        with torch.inference_mode():
            action = post(policy.select_action(pre(batch)))
        actions.append(action.to(torch.float64).numpy().reshape(-1))
    return np.asarray(actions)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("checkpoint")
    parser.add_argument("--dataset", default=str(HERE / "tests/fixtures/lerobot/pusht-h264"))
    parser.add_argument("--episode", type=int, default=0)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    obs = observations(args.dataset, args.episode, args.steps)
    server = subprocess.Popen(
        [sys.executable, "-W", "ignore", "-m", "kosmos_serve.lerobot_policy", args.checkpoint,
         "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONPATH=str(HERE / "python")))
    try:
        line = ""
        for _ in range(100):  # LeRobot prints its own lines first
            line = server.stdout.readline()
            if "ws://" in line or not line:
                break
        if "ws://" not in line:
            server.kill()
            raise SystemExit("the bridge did not start: " + server.stderr.read())
        metadata, served, timing = asyncio.run(
            through_bridge(line[line.index("ws://"):].strip(), obs, args.seed))
    finally:
        server.kill()
    local = in_process(args.checkpoint, obs, args.seed)
    difference = float(np.abs(served - local).max()) if served.shape == local.shape else None
    result = {"checkpoint": args.checkpoint, "policy_type": metadata["policy_type"],
              "lerobot": metadata["versions"]["lerobot"], "steps": len(obs),
              "actions_shape": list(served.shape), "max_abs_difference": difference,
              "equal": bool(difference == 0.0),
              "bridge_ms_median": round(float(np.median(timing)), 2),
              "files_sha256": len(metadata["files_sha256"]),
              "action_range": metadata["action"]}
    print(json.dumps(result, indent=1))
    return 0 if result["equal"] else 1


if __name__ == "__main__":
    sys.exit(main())
