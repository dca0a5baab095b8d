#!/usr/bin/env python3
"""DAgger for the physics tabletop's policies: one training run whose checkpoints differ.

Each iteration runs the latest checkpoint in the physics world through kosmos-cli (from starts of
the iteration's own seed, never a held-out one), exports its rollouts, labels every visited state
with what the scripted expert does there (tools/train/tabletop_expert.py), adds them to everything
so far (the expert's demonstrations and every earlier iteration's rollouts) and trains the next
checkpoint from the previous one's weights (kosmos_train.py --dagger NAME --init PREVIOUS).

    tools/train/dagger.py --base train-ds --init models/bc-expert-full --out models \\
        --work /tmp/dagger --iterations 5 --episodes-per-task 40

writes models/dagger-1 .. dagger-5 (generic_policy packages) and their training record entries,
each with the iteration's collection seed and the learner's success there. The learner runs as it
is evaluated (its chunks executed whole); the world records its state at each chunk start, and
the label there is the expert's chunk planned open loop from it (tabletop_expert.expert_chunk).
A simulated rollout is not evidence of real robot-task success.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from tabletop_expert import expert_chunk  # noqa: E402

TASKS = [{"id": "red_to_green", "instruction": "put the red block in the green square"},
         {"id": "push_blue_to_purple", "instruction": "push the blue block into the purple square"}]


def fail(message):
    print(f"dagger: {message}", file=sys.stderr)
    sys.exit(1)


def run(command):
    print("+ " + " ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"{' '.join(command[:3])} failed ({done.returncode}): "
             f"{(done.stderr or done.stdout).strip()[-2000:]}")
    return done.stdout


def relabel(folder, chunk):
    """Adds to the episode's actions.json the expert's chunk planned from every recorded state
    (each chunk start: a chunked learner executes its chunk open loop)."""
    path = os.path.join(folder, "actions.json")
    with open(path) as f:
        actions = json.load(f)
    with open(os.path.join(folder, "episode.json")) as f:
        episode = json.load(f)
    states_path = os.path.join(folder, "states.json")
    if not os.path.isfile(states_path):
        fail(f"{folder}: no states.json (the world reported no state to label)")
    with open(states_path) as f:
        states = json.load(f)["states"]
    labels = []
    for entry in states:
        t = int(entry["step"])
        if t >= len(actions["policy_actions"]):
            continue
        if "proprio" not in entry:
            fail(f"{folder}: the state at step {t} has no proprio (what the policy was given)")
        labels.append({"step": t, "proprio": entry["proprio"],
                       "actions": expert_chunk(entry["state"], episode["instruction"], chunk)})
    if not labels:
        fail(f"{folder}: no state to label")
    actions["expert_chunks"] = labels
    actions["expert"] = ("tools/train/tabletop_expert.py: the scripted expert's chunk planned "
                         "from each recorded state")
    with open(path, "w") as f:
        json.dump(actions, f)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", required=True,
                        help="the expert's demonstrations (kosmos-cli dataset export folder)")
    parser.add_argument("--init", required=True, help="the first learner (a policy package)")
    parser.add_argument("--out", required=True, help="where the checkpoints and record go")
    parser.add_argument("--work", required=True, help="a scratch folder (ledger, rollouts)")
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--episodes-per-task", type=int, default=100)
    parser.add_argument("--seed", type=int, default=20261220,
                        help="iteration k collects from starts of seed SEED + k")
    parser.add_argument("--steps", type=int, default=2000, help="optimizer steps an iteration")
    parser.add_argument("--name", default="dagger", help="checkpoint names NAME-1 ..")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--architecture", default="cnn", help="the policy's (kosmos_train.py)")
    parser.add_argument("--execute", type=int, default=0,
                        help="collect with the learner executing this many actions of each chunk "
                             "(1: a state to label at every step, five times the labels of an "
                             "episode; 0: whole chunks, as it is evaluated)")
    parser.add_argument("--relabelled-weight", type=int, default=0,
                        help="draws of each relabelled sample a pass (default: the trainer's)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--horizon", type=int, default=50, help="steps an episode")
    parser.add_argument("--start", type=int, default=1,
                        help="resume at this iteration (its predecessor's package must exist)")
    parser.add_argument("--tiny", action="store_true", help="a smoke run (three steps a training)")
    parser.add_argument("--kosmos-cli", default=os.path.join(HERE, "..", "..", "build", "bin",
                                                             "kosmos-cli"))
    args = parser.parse_args(argv)
    cli = os.path.abspath(args.kosmos_cli)
    work = os.path.abspath(args.work)
    out = os.path.abspath(args.out)
    os.makedirs(work, exist_ok=True)
    ledger = os.path.join(work, "dagger.kosmos")
    if not os.path.exists(ledger):
        run([cli, "init", ledger])
    if not os.path.isfile(os.path.join(args.base, "dataset.json")):
        fail(f"--base {args.base}: no dataset.json (make one with kosmos-cli dataset export)")
    if not os.path.isfile(os.path.join(args.init, "kosmos-model.json")):
        fail(f"--init {args.init}: not a model package (no kosmos-model.json)")
    if not os.access(cli, os.X_OK):
        fail(f"no kosmos-cli at {cli} (scripts/build.sh, or --kosmos-cli PATH)")
    with open(os.path.join(args.init, "kosmos-model.json")) as f:
        chunk = json.load(f)["io"]["output"][1]  # [1, CHUNK, 7]: the expert plans as far
    with open(os.path.join(args.base, "dataset.json")) as f:
        base = json.load(f)
    entries = [dict(e, dir=os.path.join(os.path.abspath(args.base), e["dir"]))
               for e in base["episodes"]]
    previous = os.path.abspath(args.init)
    for k in range(1, args.start):
        folder = os.path.join(work, f"iteration-{k}")
        with open(os.path.join(folder, "dataset.json")) as f:
            entries += [dict(e, dir=os.path.join(folder, e["dir"]))
                        for e in json.load(f)["episodes"]]
        previous = os.path.join(out, f"{args.name}-{k}")
    for k in range(args.start, args.iterations + 1):
        seed = args.seed + k
        protocol = {
            "kosmos_protocol": 1,
            "name": f"{args.name}-collect-{k}",
            "description": f"DAgger iteration {k} (tools/train/dagger.py): the learner "
                           f"{os.path.basename(previous)} from starts of seed {seed} (training "
                           "starts, never held out); the expert labels the state recorded at "
                           "each chunk start. Not evidence of real robot-task success.",
            "seed": seed, "horizon": args.horizon, "episodes_per_task": args.episodes_per_task,
            "feedback_mode": "closed_loop", "tasks": TASKS,
            "policies": [{"plugin": "torch.generic_policy",
                          "settings": dict({"package": previous},
                                           **({"execute": args.execute} if args.execute else {}))}],
            "world_model": {"plugin": "physics.tabletop",
                            "settings": {"width": 160, "height": 128}},
        }
        protocol_path = os.path.join(work, f"collect-{k}.json")
        with open(protocol_path, "w") as f:
            json.dump(protocol, f, indent=2)
        run([cli, "run", protocol_path, "--ledger", ledger, "--workers", str(args.workers)])
        folder = os.path.join(work, f"iteration-{k}")
        shutil.rmtree(folder, ignore_errors=True)
        run([cli, "dataset", "export", ledger, "--to", folder, "--policy", f'"{previous}"'])
        with open(os.path.join(folder, "dataset.json")) as f:
            collected = json.load(f)["episodes"]
        if len(collected) != 2 * args.episodes_per_task:
            fail(f"iteration {k}: exported {len(collected)} episodes, expected "
                 f"{2 * args.episodes_per_task} (is {ledger} shared with another run?)")
        for e in collected:
            relabel(os.path.join(folder, e["dir"]), chunk)
        successes = sum(bool(e["success"]) for e in collected)
        print(f"iteration {k}: {os.path.basename(previous)} succeeded in {successes}/"
              f"{len(collected)} collection episodes (seed {seed})",
              flush=True)
        entries += [dict(e, dir=os.path.join(folder, e["dir"])) for e in collected]
        aggregate = os.path.join(work, f"aggregate-{k}")
        os.makedirs(aggregate, exist_ok=True)
        with open(os.path.join(aggregate, "dataset.json"), "w") as f:
            json.dump({"schema": "kosmos.dataset/1",
                       "ledger": f"{os.path.abspath(args.base)} and {ledger} (DAgger iterations "
                                 f"1..{k})",
                       "filter": {}, "episodes": entries,
                       "note": "DAgger aggregate (tools/train/dagger.py)"}, f, indent=1)
        name = f"{args.name}-{k}"
        command = [sys.executable, os.path.join(HERE, "kosmos_train.py"), "--dataset", aggregate,
                   "--out", out, "--dagger", name, "--init", previous, "--policy-steps",
                   str(args.steps), "--threads", str(args.threads),
                   "--architecture", args.architecture]
        if args.relabelled_weight:
            command += ["--relabelled-weight", str(args.relabelled_weight)]
        run(command + (["--tiny"] if args.tiny else []))
        record_path = os.path.join(out, "training-record.json")
        with open(record_path) as f:
            record = json.load(f)
        record["models"][name]["dagger"] = {
            "iteration": k, "learner": os.path.basename(previous), "collection_seed": seed,
            "collection_episodes": len(collected), "learner_successes": successes,
            "collection_protocol": protocol["name"], "execute": args.execute or "chunk"}
        with open(record_path, "w") as f:
            json.dump(record, f, indent=2)
            f.write("\n")
        previous = os.path.join(out, name)


if __name__ == "__main__":
    main(sys.argv[1:])
