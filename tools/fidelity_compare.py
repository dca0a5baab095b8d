#!/usr/bin/env python3
"""Two fidelity reports of one study on two independent sets of held-out starts, side by side,
with their difference ([benchmark-fidelity]: a figure that holds on one seed only is not a
result).

    tools/fidelity_compare.py A.json B.json [--markdown]

A.json and B.json are `kosmos-cli fidelity ... --json` outputs (schema kosmos.fidelity/1). The
policies are matched by name; a policy in one report only is listed and left out of the
differences.
"""

import argparse
import json
import sys


def load(path):
    with open(path) as f:
        report = json.load(f)
    if report.get("schema") != "kosmos.fidelity/1":
        sys.exit(f"{path}: schema {report.get('schema')!r}, expected kosmos.fidelity/1 "
                 "(kosmos-cli fidelity ... --json)")
    return report


def short(policy):
    """The policy's display name without the runtime identity kosmos-cli resolved."""
    cut = policy.find(',"resolved"')
    name = policy if cut < 0 else policy[:cut] + "}"
    return name.replace("torch.generic_policy ", "").replace("physics.scripted_policy ", "scripted ")


def rate(p):
    if not p or p.get("rate") is None:
        return "n/a"
    return (f"{p['successes']}/{p['n']} = {100 * p['rate']:.0f}% "
            f"[{100 * p['lower']:.0f}-{100 * p['upper']:.0f}]")


def stat(s):
    if not s or s.get("value") is None:
        return "n/a"
    if s.get("lower") is None:
        return f"{s['value']:.3f}"
    return f"{s['value']:.3f} [{s['lower']:.3f}, {s['upper']:.3f}]"


def difference(a, b):
    if a is None or b is None:
        return "n/a"
    return f"{b - a:+.3f}"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("first")
    parser.add_argument("second")
    args = parser.parse_args(argv)
    a, b = load(args.first), load(args.second)
    names = (a["physics_protocol"]["name"], b["physics_protocol"]["name"])
    print(f"| policy | physics, {names[0]} | physics, {names[1]} | world model, {names[0]} | "
          f"world model, {names[1]} |")
    print("|---|---|---|---|---|")
    by_a = {short(p["policy"]): p for p in a["policies"]}
    by_b = {short(p["policy"]): p for p in b["policies"]}
    for name in sorted(set(by_a) | set(by_b),
                       key=lambda n: -((by_a.get(n) or by_b[n])["physics"].get("rate") or 0)):
        pa, pb = by_a.get(name, {}), by_b.get(name, {})
        shown = name
        if pa.get("open_loop_replay") or pb.get("open_loop_replay"):
            shown += " (world model: its physics actions, open loop)"
        print(f"| {shown} | {rate(pa.get('physics'))} | {rate(pb.get('physics'))} | "
              f"{rate(pa.get('world_model'))} | {rate(pb.get('world_model'))} |")
    print()
    print(f"| figure | {names[0]} | {names[1]} | difference (second - first) |")
    print("|---|---|---|---|")
    def judged_by(report):
        config = report.get("judge_configuration")
        if not config:
            return "the protocols' own judge"
        # The plugin, its version and settings name it; the whole key (quorum, prompt) is in the
        # reports.
        adapter, version, rest = (config["key"].split(" ", 2) + ["", ""])[:3]
        try:
            settings = json.loads(rest).get("settings")
        except (ValueError, AttributeError):
            settings = None
        shown = (config["key"] if settings is None else
                 f"{adapter} {version} {json.dumps(settings, separators=(',', ':'))}")
        return (f"`{shown}` (not judged by it: {config['imagined_not_judged']} imagined, "
                f"{config['physics_not_judged']} physics)")

    if a.get("judge_configuration") or b.get("judge_configuration"):
        print(f"| judged by | {judged_by(a)} | {judged_by(b)} | |")
    for key, label in (("pearson", "Pearson"), ("spearman", "Spearman"), ("mmrv", "MMRV")):
        print(f"| {label} | {stat(a[key])} | {stat(b[key])} | "
              f"{difference(a[key].get('value'), b[key].get('value'))} |")
    ka, kb = a["episodes"]["kappa"], b["episodes"]["kappa"]
    print(f"| per-episode kappa | {ka if ka is None else f'{ka:.3f}'} | "
          f"{kb if kb is None else f'{kb:.3f}'} | {difference(ka, kb)} |")
    for report_key, label in (("agreement", "per-episode agreement"),):
        ra, rb = a["episodes"][report_key], b["episodes"][report_key]
        print(f"| {label} | {rate(ra)} | {rate(rb)} | {difference(ra.get('rate'), rb.get('rate'))} |")
    for side in ("sensitivity", "specificity"):
        ra = a.get("judge_on_physics", {}).get(side)
        rb = b.get("judge_on_physics", {}).get(side)
        print(f"| judge {side} (physics rollouts) | {rate(ra)} | {rate(rb)} | "
              f"{difference((ra or {}).get('rate'), (rb or {}).get('rate'))} |")
    # The same by task (reports from before the judge was read by task have none).
    tasks_a = {t["task"]: t for t in a.get("judge_on_physics", {}).get("by_task", [])}
    tasks_b = {t["task"]: t for t in b.get("judge_on_physics", {}).get("by_task", [])}
    if len(set(tasks_a) | set(tasks_b)) > 1:
        for task in sorted(set(tasks_a) | set(tasks_b)):
            for side in ("sensitivity", "specificity"):
                ra = tasks_a.get(task, {}).get(side)
                rb = tasks_b.get(task, {}).get(side)
                print(f"| judge {side}, {task} | {rate(ra)} | {rate(rb)} | "
                      f"{difference((ra or {}).get('rate'), (rb or {}).get('rate'))} |")
    # Where the disagreement comes from (reports made with --in-physics; older ones have none).
    ca, cb = a.get("closed_loop_split"), b.get("closed_loop_split")
    if ca or cb:
        def split(c):
            if not c:
                return "-"
            return (f"{c['reaction']} reaction / {c['world_model_and_judge']} world model and judge "
                    f"({c['world_model_and_judge_lenient']} lenient) of "
                    f"{c['decisive_in_all_three']}")
        print(f"| disagreements: the policy reacting / the world model and judge on its actions | "
              f"{split(ca)} | {split(cb)} | |")
        for key, label in (("kappa", "kappa, imagined verdict vs its actions in physics"),
                           ("actions_kappa", "kappa, physics on own vs on imagined actions")):
            ka = (ca or {}).get(key)
            kb = (cb or {}).get(key)
            print(f"| {label} | {'-' if ka is None else f'{ka:.3f}'} | "
                  f"{'-' if kb is None else f'{kb:.3f}'} | {difference(ka, kb)} |")
    sa, sb = a["spread"], b["spread"]
    print(f"| distinguishable levels in physics | {sa['distinguishable_levels']} | "
          f"{sb['distinguishable_levels']} | {sb['distinguishable_levels'] - sa['distinguishable_levels']:+d} |")
    oa, ob = a["pairwise_orders"], b["pairwise_orders"]
    print(f"| orders physics states / the world model the same / opposite | "
          f"{sa['physics_orders_stated']} / {oa['same']} / {oa['opposite']} | "
          f"{sb['physics_orders_stated']} / {ob['same']} / {ob['opposite']} | |")
    print()
    print(f"| goal | {names[0]} | {names[1]} |")
    print("|---|---|---|")
    goals_b = {g["id"]: g for g in b.get("goals", [])}

    def mark(g):
        if g is None:
            return "n/a"
        return {True: "met", False: "not met", None: "undecided"}[g.get("met")] + \
            f" ({g['measured']})"

    for g in a.get("goals", []):
        print(f"| {g['id']}: {g['goal']} | {mark(g)} | {mark(goals_b.get(g['id']))} |")


if __name__ == "__main__":
    main(sys.argv[1:])
