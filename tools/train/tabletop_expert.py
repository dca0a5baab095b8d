"""The physics tabletop's scripted expert as a function of the world's state alone, to label the
states a learner visits (DAgger, tools/train/dagger.py).

adapters/physics/ScriptedPhysicsPolicy.cpp is the expert the demonstrations come from: a phase
machine (over the block, down, close, lift, carry, lower, release, away; for the push: behind the
block, down, push, up). A learner's rollout leaves the expert's phases behind, so this module
reads the phase from the recorded state (kosmos.world_states/1: the hand, the fingers' opening,
the commanded gripper, the blocks and the squares) and answers what the expert does there, with
the expert's targets, tolerances and caps. It is checked against the expert's own actions on its
demonstrations (`python3 tools/train/tabletop_expert.py DATASET` prints the agreement).

Facts of the world (adapters/physics/PhysicsTabletop.cpp): actions move the hand's target by
(dx, dy, dz) metres and set the gripper (0 closed .. 1 open); blocks are 4 cm cubes (centre at
z 0.02 on the table); each finger travels 0..0.045 m (the reported opening is both, 0..0.09).
"""

import json
import math
import os
import sys

BLOCK_HALF = 0.02
OPEN_WIDTH = 0.09
FUNNEL = 0.015  # how far off a learner's hand may be and still be told to go down (see below)


def task_of(instruction):
    """(kind, block, region) of a tabletop instruction (TabletopTask.cpp's grammar)."""
    words = instruction.lower().split()
    kind = "push" if words and words[0] == "push" else "pick_place"
    block = next((w for w in words if w in ("red", "blue", "yellow")), None)
    region = next((w for w in words if w in ("green", "purple")), None)
    if block is None or region is None:
        raise ValueError(f"not a tabletop instruction: {instruction!r}")
    return kind, block, region


def move_to(hand, target, gripper, cap=0.05):
    """The expert's moveTo: each axis towards the target, capped."""
    return [max(-cap, min(cap, t - h)) for h, t in zip(hand, target)] + [0.0, 0.0, 0.0, gripper]


def near(a, b, tolerance):
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def pick_place(state, block_name, region_name):
    hand = state["hand"]
    opening = state["finger_opening_m"]
    closed_cmd = state.get("gripper_command", 1.0) < 0.5
    block = state["blocks"][block_name]["pos"]
    c = state["regions"][region_name]["center"]
    half = state["regions"][region_name].get("half_size", 0.05)
    xy_to_block = math.hypot(hand[0] - block[0], hand[1] - block[1])
    lifted = block[2] > BLOCK_HALF + 0.004
    in_square = abs(block[0] - c[0]) <= half and abs(block[1] - c[1]) <= half
    # Held: the fingers closed on it, around it (the hand's reference point is at the block's
    # bottom when it grasps: the expert closes at z 0.006).
    held = pick_held(state, block_name)
    if held:
        if lifted and near(hand[:2], c, 0.004):
            if hand[2] <= 0.016 + 0.003:
                return move_to(hand, hand, 1.0)              # release
            return move_to(hand, [c[0], c[1], 0.016], 0.0)   # lower over the square
        if opening > 2 * BLOCK_HALF + 0.004 and not lifted:
            return move_to(hand, hand, 0.0)                  # still closing: wait
        if hand[2] < 0.12 - 0.004 and not near(hand[:2], c, 0.004):
            return move_to(hand, [hand[0], hand[1], 0.12], 0.0)  # lift
        return move_to(hand, [c[0], c[1], 0.12], 0.0)        # carry over the square
    if in_square and not lifted:
        # Placed: open (the release waits for the fingers), then away upwards and hold.
        if closed_cmd or opening < 0.06:
            if xy_to_block < 0.03 and hand[2] < 0.05:
                return move_to(hand, hand, 1.0)
        if hand[2] < 0.12 - 0.004:
            return move_to(hand, [hand[0], hand[1], 0.12], 1.0)
        return move_to(hand, hand, 1.0)
    above = [block[0], block[1], 0.10]
    if closed_cmd and xy_to_block <= 0.006 and hand[2] <= 0.006 + 0.003:
        return move_to(hand, hand, 0.0)                      # closing around it
    # The expert goes down once it is within 4 mm over the block. A learner's hand is rarely
    # that close; inside a funnel of FUNNEL around the block it is told to go on down while it
    # corrects its position (told to go back up instead, a learner hovers between the two), and
    # to close once it is within 6 mm at the bottom.
    if xy_to_block <= FUNNEL and opening > 0.06:
        if hand[2] <= 0.006 + 0.003 and xy_to_block <= 0.006:
            return move_to(hand, hand, 0.0)                  # at the bottom: close
        return move_to(hand, [block[0], block[1], 0.006], 1.0)  # down around it
    if hand[2] < 0.05 and xy_to_block > FUNNEL:
        # Low and away from it (a learner's state the expert never visits): up first, so the
        # fingers do not sweep the blocks.
        return move_to(hand, [hand[0], hand[1], 0.10], 1.0)
    return move_to(hand, above, 1.0)                         # over the block, open


def push(state, block_name, region_name):
    hand = state["hand"]
    block = state["blocks"][block_name]["pos"]
    c = state["regions"][region_name]["center"]
    ux, uy = block[0] - c[0], block[1] - c[1]
    n = max(1e-9, math.hypot(ux, uy))
    ux, uy = ux / n, uy / n
    if n < 0.008:
        # Pushed home: away upwards, then hold.
        if hand[2] < 0.10 - 0.004:
            return move_to(hand, [hand[0], hand[1], 0.10], 0.0)
        return move_to(hand, hand, 0.0)
    behind = [block[0] + 0.065 * ux, block[1] + 0.065 * uy, 0.10]
    hx, hy = hand[0] - block[0], hand[1] - block[1]
    along = hx * ux + hy * uy
    aside = abs(-hx * uy + hy * ux)
    in_line = along >= 0.015 and aside <= 0.02 and math.hypot(hx, hy) <= 0.08
    if hand[2] <= 0.008 + 0.003 and in_line:
        # Pushing: along the line to just past the centre, slowly.
        return move_to(hand, [c[0] + 0.03 * ux, c[1] + 0.03 * uy, 0.008], 0.0, cap=0.015)
    to_behind = math.hypot(hand[0] - behind[0], hand[1] - behind[1])
    if to_behind <= FUNNEL and hand[2] <= 0.10 + 0.004:
        return move_to(hand, [behind[0], behind[1], 0.008], 0.0)  # down behind it (the funnel)
    if hand[2] < 0.05 and to_behind > FUNNEL:
        return move_to(hand, [hand[0], hand[1], 0.10], 0.0)  # slipped or elsewhere: up first
    return move_to(hand, behind, 0.0)                        # above the point behind it


def expert_action(state, instruction):
    """The expert's 7-D action in this state (Bridge end effector: dx dy dz droll dpitch dyaw
    gripper)."""
    kind, block, region = task_of(instruction)
    if kind == "push":
        return push(state, block, region)
    return pick_place(state, block, region)


WORKSPACE_MIN = (-0.28, -0.28, 0.004)
WORKSPACE_MAX = (0.28, 0.28, 0.25)
PUSH_CONTACT = 0.026  # the hand's reference point to the pushed block's centre, along the push


def predicted(state, action, instruction):
    """The state after one action, kinematically (what the expert's next action is asked in when
    it plans a chunk open loop): the hand goes where it is commanded (the weld tracks it within a
    step), the fingers reach their command within a step and stop on a block between them, a held
    block goes with the hand and drops when released, a pushed block stays at the contact
    distance ahead of the hand. Measured on the expert's demonstrations: the hand is where it was
    commanded after a step, a pushed block 0.022-0.030 m ahead of it."""
    kind, name, region = task_of(instruction)
    hand = [min(hi, max(lo, h + a)) for h, a, lo, hi in
            zip(state["hand"], action[:3], WORKSPACE_MIN, WORKSPACE_MAX)]
    blocks = {k: {"pos": list(v["pos"])} for k, v in state["blocks"].items()}
    block = blocks[name]["pos"]
    closing = action[6] < 0.5
    if kind == "pick_place":
        was_held = pick_held(state, name)
        around = (math.hypot(state["hand"][0] - block[0], state["hand"][1] - block[1]) < 0.02
                  and state["hand"][2] <= 0.012 and block[2] < BLOCK_HALF + 0.004)
        holds = closing and (was_held or around)
        opening = 2 * BLOCK_HALF if holds else (0.0 if closing else OPEN_WIDTH)
        if holds:
            blocks[name]["pos"] = [hand[0], hand[1], max(BLOCK_HALF, hand[2] + 0.014)]
        elif was_held:
            blocks[name]["pos"] = [block[0], block[1], BLOCK_HALF]  # released: it drops
    else:
        opening = 0.0 if closing else OPEN_WIDTH
        c = state["regions"][region]["center"]
        ux, uy = block[0] - c[0], block[1] - c[1]
        n = max(1e-9, math.hypot(ux, uy))
        ux, uy = ux / n, uy / n
        hx, hy = hand[0] - block[0], hand[1] - block[1]
        along, aside = hx * ux + hy * uy, abs(-hx * uy + hy * ux)
        if hand[2] < 0.02 and aside <= 0.02 and 0.0 < along < PUSH_CONTACT:
            push_by = PUSH_CONTACT - along
            blocks[name]["pos"] = [block[0] - push_by * ux, block[1] - push_by * uy, block[2]]
    return {"hand": hand, "finger_opening_m": opening, "gripper_command": action[6],
            "blocks": blocks, "regions": state["regions"]}


def pick_held(state, name):
    hand, block = state["hand"], state["blocks"][name]["pos"]
    return (state.get("gripper_command", 1.0) < 0.5
            and math.hypot(hand[0] - block[0], hand[1] - block[1]) < 0.02
            and state["finger_opening_m"] < 0.06 and -0.005 < block[2] - hand[2] < 0.03)


def expert_chunk(state, instruction, length):
    """The expert's next `length` actions from this state, planned open loop through
    `predicted` (a chunked policy executes its chunk open loop: this is what it should have
    said)."""
    out = []
    for _ in range(length):
        action = expert_action(state, instruction)
        out.append(action)
        state = predicted(state, action, instruction)
    return out


def agreement(dataset):
    """On the expert's own demonstrations: how often the state's answer is the expert's action
    (every dimension within 1 mm, the gripper the same), over every step and over the steps where
    the expert moved (not the step on which it arrives at a waypoint: its phase machine spends a
    step there, which no state shows, and the funnel sends a hand down within 15 mm of the
    waypoint where the expert goes on to 4 mm first)."""
    with open(os.path.join(dataset, "dataset.json")) as f:
        index = json.load(f)
    same = total = 0
    by_task = {}
    for entry in index["episodes"]:
        if "physics.scripted_policy" not in str(entry["policy"]) or "expert" not in str(entry["policy"]):
            continue
        folder = os.path.join(dataset, entry["dir"])
        actions = json.load(open(os.path.join(folder, "actions.json")))["policy_actions"]
        states = {s["step"]: s["state"] for s in json.load(open(os.path.join(folder, "states.json")))["states"]}
        for t, a in enumerate(actions):
            if t not in states:
                continue
            b = expert_action(states[t], entry["instruction"])
            ok = all(abs(x - y) <= 0.001 for x, y in zip(a[:6], b[:6])) and (a[6] > 0.5) == (b[6] > 0.5)
            moved = any(abs(v) > 0.0041 for v in a[:6])
            key = entry["instruction"]
            s, n, sm, nm = by_task.get(key, (0, 0, 0, 0))
            by_task[key] = (s + ok, n + 1, sm + (ok and moved), nm + moved)
            same, total = same + ok, total + 1
    for key, (s, n, sm, nm) in sorted(by_task.items()):
        print(f"{key}: {s}/{n} = {100.0 * s / max(n, 1):.1f}% of the expert's steps, "
              f"{sm}/{nm} = {100.0 * sm / max(nm, 1):.1f}% of those it moved on")
    print(f"all: {same}/{total} = {100.0 * same / max(total, 1):.1f}%")
    return same, total


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: tabletop_expert.py DATASET (a kosmos-cli dataset export folder)")
    agreement(sys.argv[1])
