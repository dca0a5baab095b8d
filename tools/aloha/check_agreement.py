#!/usr/bin/env python3
"""Agreement of physics.mjcf's ALOHA sim with gym-aloha's own (docs/physics-world.md).

Every completed ALOHA run of a ledger (physics.mjcf, tasks aloha_transfer_cube and
aloha_insertion) is stepped again by gym-aloha's task code and dm_control's physics
(reference.py: no rendering), from the run's recorded start with the run's recorded joint actions,
and the two are compared: success (ACT's: the highest reward stage reached), the reward stage at
every step, and the objects' final poses.

    MUJOCO_GL=egl .worlds/venv/bin/python tools/aloha/check_agreement.py L.kosmos [--json OUT]

Reads the ledger read-only (its SQLite file and content-addressed objects). Runs in the gym-aloha
venv (scripts/setup-worlds.sh).
"""

import argparse
import json
import sqlite3
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference  # noqa: E402

TASKS = ("aloha_transfer_cube", "aloha_insertion")


def objects(bundle, sha):
    return json.loads((Path(bundle) / "objects" / sha[:2] / sha[2:]).read_text())


def runs_of(bundle):
    db = sqlite3.connect(f"file:{Path(bundle) / 'ledger.sqlite'}?mode=ro", uri=True)
    labels = db.execute(
        "SELECT run_id, completion, notes FROM human_labels WHERE source = 'physics' "
        "AND annotator_id = 'physics.mjcf' ORDER BY label_id").fetchall()
    latest = {}
    for run, completion, notes in labels:
        latest[run] = (completion, json.loads(notes) if notes else {})
    out = []
    for run, (completion, details) in sorted(latest.items()):
        if details.get("task") not in TASKS:
            continue
        row = db.execute(
            "SELECT a.attempt_id FROM latest_attempts a WHERE a.run_id = ?", (run,)).fetchone()
        if not row:
            continue
        arts = dict(db.execute(
            "SELECT aa.role, ar.sha256 FROM attempt_artifacts aa JOIN artifacts ar "
            "USING (artifact_id) WHERE aa.attempt_id = ? AND aa.role IN "
            "('actions', 'world_states')", (row[0],)).fetchall())
        if "actions" not in arts or "world_states" not in arts:
            continue
        out.append({"run": run, "task": details["task"], "native_success": completion == "met",
                    "start": details["start_state"]["free_joints"],
                    "actions": objects(bundle, arts["actions"])["world_actions"],
                    "states": objects(bundle, arts["world_states"])["states"]})
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ledger")
    parser.add_argument("--json", help="write the per-run comparison here")
    args = parser.parse_args()
    runs = runs_of(args.ledger)
    if not runs:
        sys.exit(f"{args.ledger}: no completed physics.mjcf ALOHA run with actions and states")
    rows = []
    for r in runs:
        rewards, qpos = reference.replay(r["task"], r["start"], r["actions"])
        native = [int(s["state"]["reward"]) for s in r["states"] if s["step"] >= 1]
        native_final = reference.start_pose(r["task"], r["states"][-1]["state"]["free_joints"])
        n = min(len(native), len(rewards))
        rows.append({
            "run": r["run"], "task": r["task"], "steps": len(r["actions"]),
            "native_success": r["native_success"], "reference_success": max(rewards) >= 4,
            "native_max_reward": max(native) if native else 0, "reference_max_reward": max(rewards),
            "reward_steps_equal": sum(a == b for a, b in zip(native[:n], rewards[:n])) / max(1, n),
            "final_object_pose_max_abs_diff": float(np.max(np.abs(native_final - qpos[16:]))),
        })
    print(f"{'task':22} {'runs':>4} {'same success':>13} {'native ok':>9} {'gym-aloha ok':>12} "
          f"{'steps same stage':>16} {'max |pose diff|':>15}")
    summary = {}
    for task in TASKS:
        t = [x for x in rows if x["task"] == task]
        if not t:
            continue
        same = sum(x["native_success"] == x["reference_success"] for x in t)
        summary[task] = {
            "runs": len(t), "same_success": same, "agreement": same / len(t),
            "native_successes": sum(x["native_success"] for x in t),
            "reference_successes": sum(x["reference_success"] for x in t),
            "mean_steps_same_stage": float(np.mean([x["reward_steps_equal"] for x in t])),
            "max_final_pose_diff": max(x["final_object_pose_max_abs_diff"] for x in t),
        }
        s = summary[task]
        print(f"{task:22} {s['runs']:>4} {same:>6}/{len(t):<3} ({100 * s['agreement']:.0f}%) "
              f"{s['native_successes']:>6} {s['reference_successes']:>12} "
              f"{100 * s['mean_steps_same_stage']:>15.1f}% {s['max_final_pose_diff']:>15.3g}")
    for x in rows:
        if x["native_success"] != x["reference_success"]:
            print(f"  run {x['run']} ({x['task']}): native max reward {x['native_max_reward']}, "
                  f"gym-aloha {x['reference_max_reward']}")
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": summary, "runs": rows}, indent=1))


if __name__ == "__main__":
    main()
