"""remote.world against a real gymnasium environment, checked against an independent run.

Replays one recorded episode's actions of a LeRobot dataset (by default the PushT fixture that
LeRobot recorded from gym-pusht) through Kosmos: the reference server serves the environment,
`kosmos-cli run` runs a protocol with the replay.actions policy and the remote.world world, and
the ledger's frames and success label are compared with an independent run of the same
environment in this Python process, with the same seed (the run's, read from the ledger) and the
same actions: every frame byte for byte, the success label equal to info["is_success"].

    .worlds/venv/bin/python tools/worlds/check_gym_replay.py build/bin/kosmos-cli \\
        [--dataset tests/fixtures/lerobot/pusht-h264] [--episode 0] [--env gym_pusht/PushT-v0]

Needs gymnasium, the environment's package, websockets, msgpack, numpy and OpenCV (or Pillow) in
the Python running it: scripts/setup-worlds.sh makes .worlds/venv with them, pinned (pyarrow too
for a dataset without a reference reading). Prints one JSON object; exits 1 on any difference.
"""

import argparse
import glob
import importlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parents[2]


def episode_actions(dataset, episode):
    """The episode's actions: from LeRobot's own reading of a fixture (DATASET.reference.json,
    tests/fixtures/lerobot) where there is one, else from its parquet files (pyarrow)."""
    info = json.loads((Path(dataset) / "meta" / "info.json").read_text())
    reference = Path(str(Path(dataset)) + ".reference.json")
    rows = []
    if reference.is_file():
        frames = json.loads(reference.read_text())["frames"]
        rows = [(f["frame_index"], f["action"]) for f in frames if f["episode_index"] == episode]
    else:
        import pyarrow.parquet as pq
        for f in sorted(glob.glob(str(Path(dataset) / "data" / "**" / "*.parquet"),
                                  recursive=True)):
            t = pq.read_table(f, columns=["episode_index", "frame_index", "action"]).to_pydict()
            rows += [(k, a) for e, k, a in zip(t["episode_index"], t["frame_index"],
                                                 t["action"]) if e == episode]
    if not rows:
        raise SystemExit(f"{dataset} has no episode {episode}")
    rows.sort()
    names = info["features"]["action"].get("names")
    if isinstance(names, dict):
        names = [n for v in names.values() for n in v]
    width = len(rows[0][1])
    return [a for _, a in rows], list(names or [f"a{i}" for i in range(width)]), info["fps"]


def read_png(path):
    try:
        import cv2
        return cv2.cvtColor(cv2.imread(str(path), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    except ImportError:
        from PIL import Image
        return np.asarray(Image.open(path).convert("RGB"))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cli")
    parser.add_argument("--dataset", default=str(HERE / "tests/fixtures/lerobot/pusht-h264"))
    parser.add_argument("--episode", type=int, default=0)
    parser.add_argument("--env", default="gym_pusht/PushT-v0")
    parser.add_argument("--import", dest="module", default="gym_pusht")
    parser.add_argument("--kwargs", default='{"obs_type": "pixels_agent_pos"}')
    parser.add_argument("--steps", type=int, default=0, help="at most this many (0: all)")
    parser.add_argument("--protocol-seed", type=int, default=11, help="the protocol's seed")
    options = parser.parse_args()

    actions, names, fps = episode_actions(options.dataset, options.episode)
    if options.steps:
        actions = actions[:options.steps]
    work = Path(tempfile.mkdtemp(prefix="kosmos-gym-"))
    (work / "actions.json").write_text(json.dumps(
        {"policy_actions": actions, "dimension_names": names, "control_rate_hz": fps}))
    env = dict(os.environ, PYTHONPATH=str(HERE / "python"))
    server = subprocess.Popen(
        [sys.executable, "-m", "kosmos_world", "--port", "0", "gym", options.env, "--import",
         options.module, "--kwargs", options.kwargs],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = server.stdout.readline()
        if "ws://" not in line:
            raise SystemExit("the server did not start: " + server.stderr.read())
        url = line[line.index("ws://"):].strip()
        protocol = {"kosmos_protocol": 1, "name": "gym-replay", "seed": options.protocol_seed,
                    "horizon": len(actions), "episodes_per_task": 1,
                    "tasks": [{"id": "replay", "instruction": "replay a recorded episode"}],
                    "policies": [{"plugin": "replay.actions",
                                  "settings": {"file": str(work / "actions.json")}}],
                    "world_model": {"plugin": "remote.world", "settings": {"url": url}}}
        (work / "p.json").write_text(json.dumps(protocol))
        ledger = work / "g.kosmos"
        subprocess.run([options.cli, "init", str(ledger)], check=True, capture_output=True)
        started = time.perf_counter()
        run = subprocess.run([options.cli, "run", str(work / "p.json"), "--ledger", str(ledger)],
                             capture_output=True, text=True)
        wall = time.perf_counter() - started
        if run.returncode != 0:
            raise SystemExit("kosmos-cli run failed:\n" + run.stdout + run.stderr)
        subprocess.run([options.cli, "export", str(ledger), "1", "--to", str(work / "frames")],
                       check=True, capture_output=True)
        verify = subprocess.run([options.cli, "verify", str(ledger)], capture_output=True,
                                text=True)
    finally:
        server.kill()
    db = sqlite3.connect(str(ledger / "ledger.sqlite"))
    seed = json.loads(db.execute("SELECT key_json FROM runs WHERE run_id = 1").fetchone()[0])
    seed = seed["seeds"]["episode"] % (2 ** 32)  # what the server resets with (gym_world.py)
    label = db.execute("SELECT completion, source, notes FROM human_labels WHERE run_id = 1").fetchone()

    # The independent run: the same environment, seed and actions, in this process.
    import gymnasium as gym
    importlib.import_module(options.module)
    e = gym.make(options.env, render_mode="rgb_array", **json.loads(options.kwargs))
    e.reset(seed=seed)
    truth = [np.asarray(e.render())]
    success = False
    for a in actions:
        _, _, terminated, truncated, info = e.step(np.asarray(a, dtype=e.action_space.dtype))
        truth.append(np.asarray(e.render()))
        success = success or bool(info.get("is_success", False))
        if terminated or truncated:
            break
    frames = sorted((work / "frames").glob("**/*.png"))
    equal = 0
    worst = 0
    for k, t in enumerate(truth):
        if k >= len(frames):
            break
        got = read_png(frames[k])
        d = int(np.abs(got.astype(int) - t.astype(int)).max()) if got.shape == t.shape else 999
        worst = max(worst, d)
        equal += d == 0
    failures = []
    if len(frames) != len(truth):
        failures.append(f"{len(frames)} frames in the ledger, {len(truth)} in the independent run")
    if worst != 0:
        failures.append(f"a frame differs by up to {worst} levels")
    if label is None or label[1] != "physics":
        failures.append(f"no physics label: {label}")
    elif (label[0] == "met") != success:
        failures.append(f"the label says {label[0]}, the independent run's success is {success}")
    if verify.returncode != 0:
        failures.append("verify: " + verify.stdout)
    print(json.dumps({"env": options.env, "dataset": options.dataset, "episode": options.episode,
                      "seed": seed, "actions": len(actions), "frames_compared": len(truth),
                      "frames_equal": equal, "worst_difference_levels": worst,
                      "label": label[0] if label else None,
                      "independent_success": success, "run_wall_s": round(wall, 2),
                      "frame_size": list(truth[0].shape), "failures": failures}, indent=1))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
