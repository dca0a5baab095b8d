"""The LeRobot policy bridge's wire (python/kosmos_serve/lerobot_policy.py: PolicyServer) with a
stand-in policy, no torch and no LeRobot: metadata first, a reset then one action per act, an
observation map without "type" taken as act (openpi's form), GET /healthz, and a policy that
raises or a request of an unknown type answered with the traceback then close code 1011.
Run by ctest (label python) with Debian's python3-websockets, python3-msgpack and numpy; what the
bridge does with a real LeRobot checkpoint is tools/lerobot/check_policy_bridge.py's check."""

import asyncio
import sys
import urllib.request
from pathlib import Path

import numpy as np
import websockets

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE / "python"))
from kosmos_serve.lerobot_policy import PolicyServer  # noqa: E402
from kosmos_world import msgpack_numpy  # noqa: E402


class StandIn:
    meta = {"kosmos_policy": 1, "framework": "lerobot", "policy_type": "stand-in",
            "action": {"names": ["a0", "a1"]}, "actions_per_reply": 1}

    def __init__(self):
        self.seed, self.instruction, self.steps = None, None, 0

    def reset(self, seed, instruction):
        self.seed, self.instruction, self.steps = seed, instruction, 0

    def act(self, observation, instruction=None):
        if "observation.state" not in observation:
            raise KeyError("the observation has no 'observation.state'")
        self.steps += 1
        state = np.asarray(observation["observation.state"], dtype=np.float64)
        return (state + self.steps + (self.seed or 0)).reshape(1, -1)


async def main():
    policy = StandIn()
    server = PolicyServer(policy, "127.0.0.1", 0)
    ready = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(server.serve(ready=ready.set_result))
    port = await ready
    url = f"ws://127.0.0.1:{port}"
    health = await asyncio.to_thread(
        lambda: urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5).status)
    assert health == 200, health
    packer = msgpack_numpy.Packer()
    async with websockets.connect(url, max_size=None, compression=None) as ws:
        meta = msgpack_numpy.unpackb(await ws.recv())
        assert meta["policy_type"] == "stand-in", meta
        await ws.send(packer.pack({"type": "reset", "seed": 10, "instruction": "push"}))
        assert msgpack_numpy.unpackb(await ws.recv())["ok"] is True
        assert (policy.seed, policy.instruction) == (10, "push")
        state = np.array([1.0, 2.0], dtype=np.float32)
        await ws.send(packer.pack({"type": "act", "observation": {"observation.state": state}}))
        reply = msgpack_numpy.unpackb(await ws.recv())
        assert reply["actions"].shape == (1, 2) and reply["actions"].tolist() == [[12.0, 13.0]]
        assert reply["server_timing"]["infer_ms"] >= 0
        await ws.send(packer.pack({"observation.state": state}))  # openpi's form: an act
        assert msgpack_numpy.unpackb(await ws.recv())["actions"].tolist() == [[13.0, 14.0]]
        await ws.send(packer.pack({"type": "act", "observation": {"observation.image": state}}))
        error = await ws.recv()
        assert isinstance(error, str) and "no 'observation.state'" in error, error
        await ws.wait_closed()
        assert ws.close_code == 1011, ws.close_code
    async with websockets.connect(url, max_size=None, compression=None) as ws:
        await ws.recv()
        await ws.send(packer.pack({"type": "dance"}))
        error = await ws.recv()
        assert "unknown request type 'dance'" in error, error
    # Two clients would interleave their episodes in one action queue: the one whose episode was
    # taken over is refused by name.
    async with websockets.connect(url, max_size=None, compression=None) as a, \
            websockets.connect(url, max_size=None, compression=None) as b:
        await a.recv()
        await b.recv()
        for ws in (a, b):
            await ws.send(packer.pack({"type": "reset", "seed": 1, "instruction": "push"}))
            assert msgpack_numpy.unpackb(await ws.recv())["ok"] is True
        await a.send(packer.pack({"type": "act", "observation": {"observation.state": state}}))
        error = await a.recv()
        assert "another connection has reset the policy" in error, error
        await b.send(packer.pack({"type": "act", "observation": {"observation.state": state}}))
        assert msgpack_numpy.unpackb(await b.recv())["actions"].tolist() == [[3.0, 4.0]]
    task.cancel()
    print("policy bridge wire: ok")


if __name__ == "__main__":
    asyncio.run(main())
