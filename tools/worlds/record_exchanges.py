"""Recorded exchanges with the reference world server serving a real gymnasium environment, for
the remote.world wire tests that run without Python (tests/remote/tst_remote_world_wire.cpp, in
the sanitizer stages too): the server's own bytes as it sent them (metadata, the replies to a
reset and two steps), the requests that asked for them, and the frames of an independent run of
the same environment with the same seed and actions in this process (PNG), to compare against.

    .worlds/venv/bin/python tools/worlds/record_exchanges.py OUT_DIR

writes OUT_DIR/pusht/: metadata.msgpack, reply-0.msgpack (reset), reply-1.msgpack,
reply-2.msgpack (steps), exchange.json (the requests, seed, actions, versions) and
frame-0.png .. frame-2.png. PushT at 96x96 (visualization_width/height), so the files are small.
"""

import asyncio
import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import gymnasium as gym
import gym_pusht  # noqa: F401
import numpy as np
import websockets

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE / "python"))
from kosmos_world import msgpack_numpy  # noqa: E402

ENV = "gym_pusht/PushT-v0"
KWARGS = {"obs_type": "pixels_agent_pos", "visualization_width": 96, "visualization_height": 96}
SEED = 2026120607  # under 2^32: the server resets with it as given
ACTIONS = [[[300.0, 280.0]], [[260.0, 320.0]]]


async def exchange(url):
    packer = msgpack_numpy.Packer()
    requests = [{"type": "reset", "seed": SEED, "instruction": "push", "start_state": {},
                 "frame": None}] + [{"type": "step", "actions": np.asarray(a)} for a in ACTIONS]
    replies = []
    async with websockets.connect(url, max_size=None, compression=None) as ws:
        metadata = await ws.recv()
        for request in requests:
            await ws.send(packer.pack(request))
            replies.append(await ws.recv())
    return metadata, replies


def main():
    out = Path(sys.argv[1]).resolve() / "pusht"
    out.mkdir(parents=True, exist_ok=True)
    server = subprocess.Popen(
        [sys.executable, "-m", "kosmos_world", "--port", "0", "gym", ENV, "--import", "gym_pusht",
         "--kwargs", json.dumps(KWARGS)],
        stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(HERE / "python")))
    try:
        line = server.stdout.readline()
        metadata, replies = asyncio.run(exchange(line[line.index("ws://"):].strip()))
    finally:
        server.kill()
    (out / "metadata.msgpack").write_bytes(metadata)
    for i, reply in enumerate(replies):
        (out / f"reply-{i}.msgpack").write_bytes(reply)
    # The independent run.
    env = gym.make(ENV, render_mode="rgb_array", **KWARGS)
    env.reset(seed=SEED)
    frames = [env.render()]
    for chunk in ACTIONS:
        for a in chunk:
            env.step(np.asarray(a, dtype=env.action_space.dtype))
        frames.append(env.render())
    for i, f in enumerate(frames):
        cv2.imwrite(str(out / f"frame-{i}.png"), cv2.cvtColor(f, cv2.COLOR_RGB2BGR))
    (out / "exchange.json").write_text(json.dumps({
        "env": ENV, "kwargs": KWARGS, "seed": SEED, "actions": ACTIONS,
        "versions": {p: importlib.metadata.version(p)
                     for p in ("gym-pusht", "gymnasium", "websockets", "msgpack", "numpy")},
        "made_by": "tools/worlds/record_exchanges.py"}, indent=1) + "\n")
    print(f"{out}: metadata and {len(replies)} replies, {len(frames)} frames")


if __name__ == "__main__":
    main()
