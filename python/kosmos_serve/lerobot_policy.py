"""A LeRobot policy checkpoint folder served to Kosmos (docs/remote-policies.md, "LeRobot
policies"), loaded by LeRobot's own loader from the local folder (never from a hub):

    python -m kosmos_serve.lerobot_policy CHECKPOINT_DIR [--port 8010] [--device cpu]
        [--parent-pid PID] [--record DIR]

The workstation's `remote.lerobot` policy starts it itself (port 0: the port chosen is printed as
"...: listening on ws://HOST:PORT"; --parent-pid: it exits when that process is gone, so a worker
killed by a signal leaves no bridge behind). --record DIR keeps every exchange, byte for byte
(metadata.msgpack, request-N.msgpack, reply-N.msgpack): what tools/lerobot/check_workstation_
actions.py replays through LeRobot in one process, and what the CI's wire fixtures are made of.

The wire is openpi's (websockets, msgpack-numpy, metadata first, one binary request and one
binary reply, a traceback then close 1011 on an error, GET /healthz), with the episode made
explicit, because LeRobot's policies keep state between steps (ACT's action queue, Diffusion
Policy's observation history):

  {"type": "reset", "seed": int, "instruction": str}  -> {"ok": True}
      policy.reset(), torch seeded with the seed (Diffusion Policy's sampling draws from it)
  {"type": "act", "observation": {FEATURE: array, ...}, "instruction"?: str}
      -> {"actions": float64 [1, D], "server_timing": {"infer_ms"}}
      one call of policy.select_action, exactly as LeRobot's own rollout makes it every step:
      the observation's images (uint8 [H, W, 3] or [3, H, W]) and states (float [N]) under the
      policy's input feature names (config.json), the task from "instruction" (or the reset's)
  an observation map without "type" is taken as "act" (openpi's form).
The policy keeps one episode's state: an act on a connection other than the one that made the
last reset is refused (two clients would interleave their episodes in one action queue).

The metadata says what the policy is: type, input and output features with shapes, chunk size
and actions executed per chunk, the action names and the range the normalization statistics
give, the SHA-256 of every file of the checkpoint, LeRobot's and torch's versions, the device.
A missing feature, an image of another shape, a policy that raises: the traceback names it.
"""

import argparse
import asyncio
import concurrent.futures
import logging
import os
import signal
import sys
import time
import traceback
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from kosmos_world import msgpack_numpy  # noqa: E402
from kosmos_world.package import sha256_file  # noqa: E402
from kosmos_world.server import listen, send_error  # noqa: E402

log = logging.getLogger("kosmos_serve")


class LeRobotPolicy:
    """The policy of a LeRobot checkpoint folder, with its pre- and post-processors."""

    def __init__(self, folder, device="cpu"):
        import torch
        import lerobot
        from lerobot.configs.policies import PreTrainedConfig
        from lerobot.policies.factory import get_policy_class, make_pre_post_processors

        self.torch = torch
        self.folder = Path(folder).resolve()
        if not (self.folder / "config.json").is_file():
            raise ValueError(f"{self.folder}: no config.json (a LeRobot checkpoint folder holds "
                             "config.json and model.safetensors, as save_pretrained writes them)")
        config = PreTrainedConfig.from_pretrained(str(self.folder))
        config.device = device
        self.config = config
        self.policy = get_policy_class(config.type).from_pretrained(str(self.folder),
                                                                     config=config)
        self.policy.eval()
        self.pre, self.post = make_pre_post_processors(
            config, pretrained_path=str(self.folder),
            preprocessor_overrides={"device_processor": {"device": device}})
        self.device = device
        self.instruction = ""
        files = {p.name: sha256_file(p) for p in sorted(self.folder.iterdir()) if p.is_file()}
        action = config.output_features["action"]
        stats = self._action_range()
        self.meta = {
            "kosmos_policy": 1, "framework": "lerobot", "policy_type": config.type,
            "checkpoint": str(self.folder), "files_sha256": files,
            "input_features": {k: {"type": f.type.value, "shape": list(f.shape)}
                               for k, f in config.input_features.items()},
            "output_features": {k: {"type": f.type.value, "shape": list(f.shape)}
                                for k, f in config.output_features.items()},
            "chunk_size": int(getattr(config, "chunk_size", getattr(config, "horizon", 1))),
            "n_action_steps": int(getattr(config, "n_action_steps", 1)),
            "actions_per_reply": 1,
            "action": {"names": [f"action_{i}" for i in range(action.shape[0])], **stats},
            "versions": {"lerobot": lerobot.__version__, "torch": torch.__version__},
            "device": device, "reported_by_server": True}

    def _action_range(self):
        """The action range the normalization statistics saved with the checkpoint give (the
        dataset's min and max), where they are there."""
        for step in getattr(self.post, "steps", []):
            stats = getattr(step, "stats", None) or {}
            action = stats.get("action") if isinstance(stats, dict) else None
            if action and "min" in action and "max" in action:
                lo = np.asarray(action["min"].cpu() if hasattr(action["min"], "cpu")
                                else action["min"], dtype=np.float64).ravel()
                hi = np.asarray(action["max"].cpu() if hasattr(action["max"], "cpu")
                                else action["max"], dtype=np.float64).ravel()
                return {"min": lo.tolist(), "max": hi.tolist()}
        return {}

    def reset(self, seed, instruction):
        self.policy.reset()
        self.torch.manual_seed(int(seed) % (2 ** 63))
        self.instruction = instruction or ""

    def _batch(self, observation, instruction):
        torch = self.torch
        batch = {}
        for key, feature in self.config.input_features.items():
            if key not in observation:
                raise KeyError(f"the observation has no {key!r}, an input of this "
                               f"{self.config.type} policy (it sent {sorted(observation)})")
            value = np.asarray(observation[key])
            if feature.type.value == "VISUAL":
                c, h, w = feature.shape
                if value.dtype != np.uint8 or value.ndim != 3:
                    raise ValueError(f"{key}: expected a uint8 image, got {value.dtype} "
                                     f"{list(value.shape)}")
                if value.shape == (h, w, c):
                    value = value.transpose(2, 0, 1)
                if value.shape != (c, h, w):
                    raise ValueError(f"{key}: an image of {list(value.shape)}; the policy takes "
                                     f"[{h}, {w}, {c}] (or [{c}, {h}, {w}])")
                tensor = torch.from_numpy(np.ascontiguousarray(value)).float() / 255.0
            else:
                tensor = torch.from_numpy(value.astype(np.float32)).reshape(feature.shape)
            batch[key] = tensor.unsqueeze(0)
        batch["task"] = [instruction]
        return batch

    def act(self, observation, instruction=None):
        torch = self.torch
        batch = self.pre(self._batch(observation, instruction or self.instruction))
        with torch.inference_mode():
            action = self.policy.select_action(batch)
        action = self.post(action)
        return np.asarray(action.to("cpu", torch.float64).numpy()).reshape(1, -1)


class Recorder:
    """Every exchange of the server, byte for byte, numbered in the order they happened."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.count = 0

    def metadata(self, data):
        (self.folder / "metadata.msgpack").write_bytes(data)

    def exchange(self, request, reply):
        (self.folder / f"request-{self.count}.msgpack").write_bytes(request)
        (self.folder / f"reply-{self.count}.msgpack").write_bytes(
            reply if isinstance(reply, bytes) else reply.encode())
        self.count += 1


class PolicyServer:
    def __init__(self, policy, host="127.0.0.1", port=8010, record=None):
        self.policy, self.host, self.port = policy, host, port
        self.recorder = Recorder(record) if record else None
        self.episode_owner = None  # the connection whose reset began the policy's episode
        # One thread for the policy (CUDA contexts and torch's thread-local state), its calls
        # serialized: one episode at a time.
        self.thread = concurrent.futures.ThreadPoolExecutor(max_workers=1,
                                                            thread_name_prefix="lerobot")
        self.lock = asyncio.Lock()

    async def _handler(self, websocket, path=None):
        loop = asyncio.get_running_loop()
        packer = msgpack_numpy.Packer()
        metadata = packer.pack(self.policy.meta)
        if self.recorder:
            self.recorder.metadata(metadata)
        await websocket.send(metadata)
        while True:
            try:
                message = await websocket.recv()
            except Exception:
                return
            try:
                request = msgpack_numpy.unpackb(message)
                if not isinstance(request, dict):
                    raise ValueError("a request is a map")
                kind = request.get("type", "act")
                start = time.perf_counter()
                async with self.lock:
                    if kind == "reset":
                        await loop.run_in_executor(
                            self.thread, self.policy.reset, int(request.get("seed", 0)),
                            str(request.get("instruction", "")))
                        self.episode_owner = websocket
                        reply = {"ok": True}
                    elif kind == "act":
                        if self.episode_owner not in (None, websocket):
                            raise RuntimeError(
                                "another connection has reset the policy since this one's "
                                "episode began: one episode at a time per bridge (start one "
                                "bridge per concurrent episode)")
                        observation = request.get("observation", request)
                        actions = await loop.run_in_executor(
                            self.thread, self.policy.act, observation, request.get("instruction"))
                        reply = {"actions": actions}
                    else:
                        raise ValueError(f"unknown request type {kind!r}")
                reply["server_timing"] = {"infer_ms": (time.perf_counter() - start) * 1000}
                data = packer.pack(reply)
                if self.recorder:
                    self.recorder.exchange(message, data)
                await websocket.send(data)
            except Exception:
                if self.recorder:
                    self.recorder.exchange(message, traceback.format_exc())
                await send_error(websocket)
                return

    async def serve(self, ready=None, parent_pid=None):
        if parent_pid:
            asyncio.get_running_loop().create_task(_exit_with(parent_pid))
        # Observations are a few camera frames and a state: 64 MiB is plenty.
        await listen(self._handler, self.host, self.port,
                     f"kosmos_serve.lerobot_policy: {self.policy.meta['policy_type']}",
                     max_size=64 << 20, ready=ready)


async def _exit_with(parent_pid):
    """Exits as soon as the process that started the bridge is gone (its children are re-parented
    then): a worker killed by SIGKILL leaves no policy holding memory behind."""
    while os.getppid() == parent_pid:
        await asyncio.sleep(0.5)
    log.warning("the parent process %d is gone: the bridge exits", parent_pid)
    os._exit(0)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint", help="a LeRobot checkpoint folder (config.json, "
                                           "model.safetensors, the processors)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8010)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--parent-pid", type=int, default=None,
                        help="exit when this process (the one that started the bridge) is gone")
    parser.add_argument("--record", default=None,
                        help="a folder where every exchange is kept, byte for byte")
    options = parser.parse_args(argv)
    if options.parent_pid:
        if os.getppid() != options.parent_pid:
            return 3  # started by a process that is gone already
        # Ctrl-C in a terminal reaches the whole process group: the worker that started the
        # bridge interrupts its run cleanly, then stops the bridge itself.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    policy = LeRobotPolicy(options.checkpoint, options.device)
    try:
        asyncio.run(PolicyServer(policy, options.host, options.port, options.record).serve(
            parent_pid=options.parent_pid))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
