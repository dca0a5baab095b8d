"""What a policy trained on a PushT recording does in gym-pusht, beside the scripted pusher that
made the recording and a policy that holds still, on the same starts (docs/training.md "On your
own recordings"). Reads the policy's runs from a kosmos-cli dataset export of a ledger whose world
was remote.world serving gym_pusht/PushT-v0 (the states carry the simulator's info: block_pose,
n_contacts, coverage), and replays the two baselines on each episode's seed here.

    .worlds/venv/bin/python tools/lerobot/pusht_study.py EXPORT_DIR [--chunk 5]

Per episode, at the end of every chunk (where the ledger has the world's state): whether the agent
has touched the block (n_contacts > 0), the distance from the agent to the block's centre at the
end, the best coverage of the target.
"""

import argparse
import json
import math
import os

import gymnasium as gym
import gym_pusht  # noqa: F401
import numpy as np


def metrics(states):
    touched = any(s["info.n_contacts"][0] > 0 for s in states if "info.n_contacts" in s)
    last = states[-1]
    agent, block = last["agent_pos"], last["info.block_pose"]
    coverage = max((s.get("info.coverage", [0.0])[0] for s in states), default=0.0)
    return touched, math.dist(agent, block[:2]), coverage


def baseline(seed, steps, chunk, law):
    env = gym.make("gym_pusht/PushT-v0", obs_type="pixels_agent_pos", render_mode="rgb_array")
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed % (2 ** 32))
    offset = rng.normal(0, 25, 2)
    states = [{"agent_pos": list(obs["agent_pos"]), **{"info." + k: list(np.atleast_1d(v))
                                                      for k, v in info.items()}}]
    for step in range(steps):
        pos = obs["agent_pos"].astype(np.float64)
        block = np.array(env.unwrapped.block.position, dtype=np.float64)
        if law == "pusher":  # tools/lerobot/record_pusht_study.py's
            action = np.clip(pos + 0.25 * (block + offset - pos) + rng.normal(0, 4, 2), 0, 512)
        else:
            action = pos
        obs, reward, terminated, truncated, info = env.step(action.astype(np.float32))
        if (step + 1) % chunk == 0 or step == steps - 1:
            states.append({"agent_pos": list(obs["agent_pos"]),
                           **{"info." + k: list(np.atleast_1d(v)) for k, v in info.items()}})
        if terminated or truncated:
            break
    env.close()
    return metrics(states)


def summary(name, rows):
    n = len(rows)
    touched = sum(r[0] for r in rows)
    return (f"{name:<22} n={n:<3} touched the block {touched}/{n}  final distance to the block "
            f"mean {np.mean([r[1] for r in rows]):6.1f} px (median "
            f"{np.median([r[1] for r in rows]):6.1f})  best coverage mean "
            f"{np.mean([r[2] for r in rows]):.3f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("export")
    parser.add_argument("--chunk", type=int, default=5)
    args = parser.parse_args()
    with open(os.path.join(args.export, "dataset.json")) as f:
        index = json.load(f)
    policy, pusher, hold = [], [], []
    for entry in index["episodes"]:
        folder = os.path.join(args.export, entry["dir"])
        with open(os.path.join(folder, "episode.json")) as f:
            episode = json.load(f)
        with open(os.path.join(folder, "states.json")) as f:
            states = [s["state"] for s in json.load(f)["states"]]
        seed = int(episode["seeds"]["episode"]) % (2 ** 32)  # as the server resets
        policy.append(metrics(states))
        pusher.append(baseline(seed, episode["actions"], args.chunk, "pusher"))
        hold.append(baseline(seed, episode["actions"], args.chunk, "hold"))
    print(summary("policy (" + index["episodes"][0]["policy"].split(" ")[0] + ")", policy))
    print(summary("scripted pusher", pusher))
    print(summary("holding still", hold))


if __name__ == "__main__":
    main()
