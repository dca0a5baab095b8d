"""A PushT recording for training studies (docs/training.md "On your own recordings"), written by
LeRobot's own writer from real gym-pusht rollouts: a scripted pusher that goes for the T block it
sees (the block's position from the simulator, plus an offset drawn per episode and noise per
step), so what it does can be learnt from the frame and the state. Not a fixture: made on demand,
a few minutes for the default size.

    .lerobot/venv/bin/python tools/lerobot/record_pusht_study.py OUT_DIR [EPISODES] [STEPS] [SEED]

defaults: 50 episodes of 60 steps (10 fps), seed 500.
"""

import shutil
import sys
from pathlib import Path

import gymnasium as gym
import gym_pusht  # noqa: F401  (registers gym_pusht/PushT-v0)
import numpy as np
from lerobot.datasets.lerobot_dataset import LeRobotDataset

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_fixtures import FEATURES, TASK  # noqa: E402


def main() -> None:
    root = Path(sys.argv[1]).resolve()
    episodes = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 60
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 500
    if root.exists():
        shutil.rmtree(root)
    ds = LeRobotDataset.create(repo_id="kosmos/pusht-study", fps=10, features=FEATURES, root=root,
                               robot_type="pusht", use_videos=True, vcodec="h264")
    env = gym.make("gym_pusht/PushT-v0", obs_type="pixels_agent_pos", render_mode="rgb_array")
    rng = np.random.default_rng(seed)
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed + episode)
        offset = rng.normal(0, 25, 2)
        for step in range(steps):
            pos = obs["agent_pos"].astype(np.float32)
            block = np.array(env.unwrapped.block.position, dtype=np.float64)
            target = block + offset
            action = np.clip(pos + 0.25 * (target - pos) + rng.normal(0, 4, 2), 0, 512).astype(
                np.float32)
            obs_next, reward, terminated, truncated, info = env.step(action)
            done = bool(terminated or truncated or step == steps - 1)
            ds.add_frame({
                "observation.image": obs["pixels"],
                "observation.state": pos,
                "action": action,
                "next.reward": np.array([reward], dtype=np.float32),
                "next.success": np.array([bool(info.get("is_success", False))]),
                "next.done": np.array([done]),
                "task": TASK,
            })
            obs = obs_next
        ds.save_episode()
    ds.finalize()
    env.close()
    print(f"{root}: {episodes} episodes of {steps} steps")


if __name__ == "__main__":
    main()
