"""Small LeRobot datasets written by LeRobot itself from real gym-pusht rollouts, with the
reference reading of each (LeRobot's own LeRobotDataset), for the tests of Kosmos's native reader
(tests/dataset, docs/datasets.md "LeRobot datasets"). Run through tools/lerobot/make-fixtures.sh,
which installs the pinned versions into .lerobot/venv first.

    python make_fixtures.py OUT_DIR

With LeRobot 0.4.x it writes the v3.0 datasets (pusht-h264, pusht-av1); with LeRobot 0.3.x, which
writes codebase v2.1, the v2.1 one (pusht-v21, its default AV1 encoding).

writes OUT_DIR/<name>/ (the dataset as LeRobot wrote it) and OUT_DIR/<name>.reference.json (every
value LeRobot's reader returns for it: per frame the indices, timestamp, task, action, state,
reward, success and done, and per camera the decoded frame's mean value per channel on 0..255).
"""

import json
import math
import shutil
import sys
from importlib.metadata import version
from pathlib import Path

import gymnasium as gym
import gym_pusht  # noqa: F401  (registers gym_pusht/PushT-v0)
import numpy as np
from lerobot.datasets.lerobot_dataset import LeRobotDataset

FEATURES = {
    "observation.image": {"dtype": "video", "shape": (96, 96, 3), "names": ["height", "width", "channel"]},
    "observation.state": {"dtype": "float32", "shape": (2,), "names": {"motors": ["motor_0", "motor_1"]}},
    "action": {"dtype": "float32", "shape": (2,), "names": {"motors": ["motor_0", "motor_1"]}},
    "next.reward": {"dtype": "float32", "shape": (1,), "names": None},
    "next.success": {"dtype": "bool", "shape": (1,), "names": None},
    "next.done": {"dtype": "bool", "shape": (1,), "names": None},
}
TASK = "Push the T-shaped block onto the T-shaped target."


V21 = version("lerobot").startswith("0.3.")


def record(out: Path, name: str, vcodec: str, episodes: int, steps: int, seed: int) -> Path:
    root = out / name
    if root.exists():
        shutil.rmtree(root)
    codec = {} if V21 else {"vcodec": vcodec}  # 0.3.x encodes with its default, libsvtav1
    ds = LeRobotDataset.create(repo_id=f"kosmos/{name}", fps=10, features=FEATURES, root=root,
                               robot_type="pusht", use_videos=True, **codec)
    env = gym.make("gym_pusht/PushT-v0", obs_type="pixels_agent_pos", render_mode="rgb_array")
    rng = np.random.default_rng(seed)
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed + episode)
        # A scripted pusher: towards the block with noise, so actions and states vary.
        target = np.array([256.0, 256.0]) + rng.normal(0, 60, 2)
        for step in range(steps):
            pos = obs["agent_pos"].astype(np.float32)
            action = np.clip(pos + 0.3 * (target - pos) + rng.normal(0, 8, 2), 0, 512).astype(np.float32)
            obs_next, reward, terminated, truncated, info = env.step(action)
            done = bool(terminated or truncated or step == steps - 1)
            row = {
                "observation.image": obs["pixels"],
                "observation.state": pos,
                "action": action,
                "next.reward": np.array([reward], dtype=np.float32),
                "next.success": np.array([bool(info.get("is_success", False))]),
                "next.done": np.array([done]),
            }
            if V21:
                ds.add_frame(row, task=TASK)
            else:
                ds.add_frame({**row, "task": TASK})
            obs = obs_next
        ds.save_episode()
    if not V21:
        ds.finalize()
    env.close()
    return root


def record_aloha(out: Path, name: str, vcodec: str, episodes: int, steps: int, seed: int) -> Path:
    """ALOHA's transfer-cube scene from gym-aloha (MuJoCo, 480x640 top camera, 14 joints at
    50 fps): the arms move gently around their start (joint-position actions), so actions and
    states vary; LeRobot's writer records it as it records any dataset."""
    from gym_aloha.constants import JOINTS
    import gym_aloha  # noqa: F401  (registers gym_aloha/AlohaTransferCube-v0)
    root = out / name
    if root.exists():
        shutil.rmtree(root)
    names = list(JOINTS)
    features = {
        "observation.images.top": {"dtype": "video", "shape": (480, 640, 3),
                                   "names": ["height", "width", "channel"]},
        "observation.state": {"dtype": "float32", "shape": (14,), "names": {"motors": names}},
        "action": {"dtype": "float32", "shape": (14,), "names": {"motors": names}},
        "next.reward": {"dtype": "float32", "shape": (1,), "names": None},
        "next.success": {"dtype": "bool", "shape": (1,), "names": None},
        "next.done": {"dtype": "bool", "shape": (1,), "names": None},
    }
    task = "Pick up the cube with the right arm and transfer it to the left arm."
    ds = LeRobotDataset.create(repo_id=f"kosmos/{name}", fps=50, features=features, root=root,
                               robot_type="aloha", use_videos=True, vcodec=vcodec)
    env = gym.make("gym_aloha/AlohaTransferCube-v0", obs_type="pixels_agent_pos",
                   render_mode="rgb_array")
    rng = np.random.default_rng(seed)
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed + episode)
        start = obs["agent_pos"].astype(np.float32)
        phase = rng.uniform(0, 2 * np.pi, 14)
        for step in range(steps):
            pos = obs["agent_pos"].astype(np.float32)
            action = np.clip(start + 0.15 * np.sin(phase + 0.3 * step), -1, 1).astype(np.float32)
            obs_next, reward, terminated, truncated, info = env.step(action)
            done = bool(terminated or truncated or step == steps - 1)
            ds.add_frame({
                "observation.images.top": obs["pixels"]["top"],
                "observation.state": pos,
                "action": action,
                "next.reward": np.array([reward], dtype=np.float32),
                "next.success": np.array([bool(info.get("is_success", False))]),
                "next.done": np.array([done]),
                "task": task,
            })
            obs = obs_next
        ds.save_episode()
    ds.finalize()
    env.close()
    return root


def number(x):
    x = float(x)
    return x if math.isfinite(x) else str(x)


def reference(root: Path, name: str) -> dict:
    # PyAV (its own FFmpeg in the wheel) decodes: torchcodec needs a system FFmpeg of its list.
    ds = LeRobotDataset(f"kosmos/{name}", root=root, video_backend="pyav")
    frames = []
    for i in range(len(ds)):
        item = ds[i]
        row = {
            "index": int(item["index"]),
            "episode_index": int(item["episode_index"]),
            "frame_index": int(item["frame_index"]),
            "timestamp": number(item["timestamp"]),
            "task_index": int(item["task_index"]),
            "task": item["task"],
        }
        for key in ("action", "observation.state", "next.reward"):
            row[key] = [number(v) for v in item[key].flatten().tolist()]
        for key in ("next.success", "next.done"):
            row[key] = [int(v) for v in item[key].flatten().tolist()]
        for camera in ds.meta.video_keys:
            image = item[camera]  # float CHW in [0, 1]
            row[camera + ".mean"] = [number(v) for v in (image * 255.0).mean(dim=(1, 2)).tolist()]
        frames.append(row)
    if V21:  # meta.episodes: {index: {episode_index, tasks, length}}; ranges from the data index
        episodes = [{
            "episode_index": int(e["episode_index"]),
            "length": int(e["length"]),
            "tasks": list(e["tasks"]),
            "dataset_from_index": int(ds.episode_data_index["from"][i]),
            "dataset_to_index": int(ds.episode_data_index["to"][i]),
        } for i, e in enumerate(ds.meta.episodes.values())]
    else:
        episodes = [{
            "episode_index": int(e["episode_index"]),
            "length": int(e["length"]),
            "tasks": list(e["tasks"]),
            "dataset_from_index": int(e["dataset_from_index"]),
            "dataset_to_index": int(e["dataset_to_index"]),
        } for e in ds.meta.episodes]
    return {
        "made_by": {"lerobot": version("lerobot"), "gym-pusht": version("gym-pusht"),
                    **({"gym-aloha": version("gym-aloha"), "mujoco": version("mujoco")}
                       if name.startswith("aloha") else {}),
                    "pyarrow": version("pyarrow"), "av": version("av"),
                    "torchcodec": version("torchcodec") if _has("torchcodec") else None,
                    "command": "tools/lerobot/make-fixtures.sh"},
        "codebase_version": ds.meta.info["codebase_version"],
        "fps": ds.meta.fps,
        "cameras": list(ds.meta.video_keys),
        "episodes": episodes,
        "frames": frames,
    }


def _has(package: str) -> bool:
    try:
        version(package)
        return True
    except Exception:
        return False


def main() -> None:
    out = Path(sys.argv[1]).resolve()
    only = sys.argv[2:]  # names to (re)make; default: every fixture of this LeRobot version
    out.mkdir(parents=True, exist_ok=True)
    sets = ((("pusht-v21", "libsvtav1", 2, 20, 300),) if V21 else
            (("pusht-h264", "h264", 3, 24, 100), ("pusht-av1", "libsvtav1", 2, 16, 200),
             ("aloha-h264", "h264", 2, 12, 400)))
    for name, vcodec, episodes, steps, seed in sets:
        if only and name not in only:
            continue
        make = record_aloha if name.startswith("aloha") else record
        root = make(out, name, vcodec, episodes, steps, seed)
        ref = reference(root, name)
        (out / f"{name}.reference.json").write_text(json.dumps(ref, indent=1) + "\n")
        print(f"{name}: {len(ref['episodes'])} episodes, {len(ref['frames'])} frames, {vcodec}")


if __name__ == "__main__":
    main()
