"""Models for recordings of any robot (a LeRobot dataset read through kosmos-cli; docs/training.md
"On your own recordings"): a behaviour-cloning policy over the dataset's own action and state
widths, and an action-conditioned video predictor that assumes nothing about the robot or the
camera. The physics world's models (kosmos_train.py) read the tabletop's hand and project it
through the tabletop's camera; these read only what a recording holds: frames, the recorded state
(observation.state), the actions and the task.

Both are packages of the generic libtorch families (generic_policy, generic_world_model) with the
action contract taken from the recording: the action names from info.json, the bounds the range
the recording covers, the control rate its fps.
"""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def coordinate_planes(height, width):
    ys = torch.linspace(-1, 1, height).view(1, 1, height, 1).expand(1, 1, height, width)
    xs = torch.linspace(-1, 1, width).view(1, 1, 1, width).expand(1, 1, height, width)
    return torch.cat([xs, ys], 1).contiguous()


class RecordedPolicy(nn.Module):
    """The frame, the recorded state and the task -> a chunk of `chunk` actions of `actions`
    values, in the units the action contract's normal normalization gives (the adapter maps them
    back). Per-pixel standardization by the training frames (buffers), two coordinate planes, a
    CNN of four stride-2 convolutions, the standardized state through an MLP, the task's
    embedding; the output is clamped to the recorded range, so the module never proposes an
    action outside its contract."""

    def __init__(self, instructions, states, actions, chunk, height, width):
        super().__init__()
        self.chunk, self.actions = chunk, actions
        self.register_buffer("pixel_mean", torch.zeros(1, 3, height, width))
        self.register_buffer("pixel_std", torch.ones(1, 3, height, width))
        self.register_buffer("coords", coordinate_planes(height, width))
        self.register_buffer("state_mean", torch.zeros(1, states))
        self.register_buffer("state_std", torch.ones(1, states))
        self.conv = nn.Sequential(
            nn.Conv2d(5, 32, 5, stride=2, padding=2), nn.ReLU(),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(64, 64, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(64, 64, 3, stride=2, padding=1), nn.ReLU())
        cells = 64 * ((height + 15) // 16) * ((width + 15) // 16)
        self.task = nn.Embedding(instructions, 32)
        self.state = nn.Sequential(nn.Linear(states, 128), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(cells + 32 + 128, 256), nn.ReLU(),
                                  nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, chunk * actions))
        self.register_buffer("lower", torch.full([actions], -1e6))
        self.register_buffer("upper", torch.full([actions], 1e6))

    def forward(self, image, proprio, task):
        b = image.size(0)
        x = (image - self.pixel_mean) / self.pixel_std
        x = torch.cat([x, self.coords.expand(b, 2, self.coords.size(2), self.coords.size(3))], 1)
        x = self.conv(x).flatten(1)
        s = self.state((proprio - self.state_mean) / self.state_std)
        out = self.head(torch.cat([x, self.task(task), s], 1)).view(b, self.chunk, self.actions)
        return torch.max(torch.min(out, self.upper), self.lower)


class RecordedImagePolicy(nn.Module):
    """A RecordedPolicy trained without a state (--state-key none: every state zero), packaged
    with the frame and the task as its only inputs, for worlds that report no state (a learned
    world model that predicts frames only)."""

    def __init__(self, policy):
        super().__init__()
        self.policy = policy

    def forward(self, image, task):
        return self.policy(image, torch.zeros(image.size(0), 1, device=image.device), task)


class RecordedWorld(nn.Module):
    """The last two frames and a chunk of normalized actions -> the next `chunk` frames. A U-Net
    (full resolution down to an eighth) sees the frames, coordinate planes and every action of the
    chunk as constant planes, and outputs for each step a flow field (up to a quarter of the
    frame), by which the last frame is warped backwards, a mask of what is painted instead, and
    that paint as a correction of the warped colour. Nothing in it knows the robot: the motion is
    learnt from the recording alone (the tabletop's model, kosmos_train.WorldModel, projects the
    commanded hand through the tabletop's camera instead)."""

    def __init__(self, actions, chunk, height, width):
        super().__init__()
        self.chunk, self.actions, self.height, self.width = chunk, actions, height, width
        self.register_buffer("coords", coordinate_planes(height, width))
        gy, gx = torch.meshgrid(torch.linspace(-1, 1, height), torch.linspace(-1, 1, width),
                                indexing="ij")
        self.register_buffer("grid", torch.stack([gx, gy], -1).unsqueeze(0).contiguous())
        cin = 6 + 2 + chunk * actions
        self.e1 = nn.Sequential(nn.Conv2d(cin, 48, 3, padding=1), nn.ReLU(),
                                nn.Conv2d(48, 48, 3, stride=2, padding=1), nn.ReLU())
        self.e2 = nn.Sequential(nn.Conv2d(48, 96, 3, stride=2, padding=1), nn.ReLU())
        self.e3 = nn.Sequential(nn.Conv2d(96, 128, 3, stride=2, padding=1), nn.ReLU(),
                                nn.Conv2d(128, 128, 3, padding=1), nn.ReLU())
        self.d2 = nn.Sequential(nn.Conv2d(128 + 96, 96, 3, padding=1), nn.ReLU())
        self.d1 = nn.Sequential(nn.Conv2d(96 + 48, 48, 3, padding=1), nn.ReLU())
        self.d0 = nn.Sequential(nn.Conv2d(48 + cin, 48, 3, padding=1), nn.ReLU())
        self.out = nn.Conv2d(48, chunk * 6, 3, padding=1)

    def forward(self, frames, actions):
        b = frames.size(0)
        last = frames[:, -1]
        planes = actions.reshape(b, self.chunk * self.actions)[:, :, None, None].expand(
            b, self.chunk * self.actions, self.height, self.width)
        x = torch.cat([frames.reshape(b, 6, self.height, self.width),
                       self.coords.expand(b, 2, self.height, self.width), planes], 1)
        h1 = self.e1(x)
        h2 = self.e2(h1)
        h3 = self.e3(h2)
        u2 = self.d2(torch.cat([F.interpolate(h3, size=[h2.size(2), h2.size(3)], mode="nearest"),
                                h2], 1))
        u1 = self.d1(torch.cat([F.interpolate(u2, size=[h1.size(2), h1.size(3)], mode="nearest"),
                                h1], 1))
        u0 = self.d0(torch.cat([F.interpolate(u1, size=[self.height, self.width],
                                              mode="nearest"), x], 1))
        o = self.out(u0).view(b, self.chunk, 6, self.height, self.width)
        flow = 0.5 * torch.tanh(o[:, :, 0:2]).permute(0, 1, 3, 4, 2)  # grid units: 1 = half
        grid = (self.grid.unsqueeze(1) - flow).reshape(b * self.chunk, self.height, self.width, 2)
        source = last.unsqueeze(1).expand(b, self.chunk, 3, self.height, self.width).reshape(
            b * self.chunk, 3, self.height, self.width)
        warped = F.grid_sample(source, grid, mode="bilinear", padding_mode="border",
                               align_corners=True).view(b, self.chunk, 3, self.height, self.width)
        paint = torch.sigmoid(o[:, :, 2:3] - 2.0)
        colour = (warped + 0.5 * torch.tanh(o[:, :, 3:6])).clamp(0.0, 1.0)
        return warped * (1 - paint) + colour * paint


def recorded_contract(names, actions, fps, chunk, mean, std):
    """The action contract of a recording: its names, the range it covers (exactly: the world
    the recording came from accepted every action in it, and may accept nothing beyond; a
    dimension that never changes is widened by 1e-6 so its range is not empty), its fps; normal
    normalization by the recording's statistics. A dimension named like a gripper whose values
    all lie in 0..1 is declared as the gripper (0 closed, 1 open), when there is exactly one."""
    lo, hi = actions.min(0).astype(np.float64), actions.max(0).astype(np.float64)
    margin = np.where(hi - lo > 1e-9, 0.0, 1e-6)
    dims = [{"name": n, "unit": "recorded", "min": float(lo[i] - margin[i]),
             "max": float(hi[i] + margin[i])} for i, n in enumerate(names)]
    contract = {"dimensions": dims, "chunk_length": chunk, "control_rate_hz": float(fps),
                "normalization": {"scheme": "normal",
                                  "statistics": {"mean": [float(v) for v in mean],
                                                 "std": [float(v) for v in std]},
                                  "mask": [True] * len(names)},
                # inert without a gripper index: the contract always names a convention
                "gripper_convention": "zero_closed_one_open"}
    grippers = [i for i, n in enumerate(names) if "gripper" in n.lower()]
    if len(grippers) == 1 and lo[grippers[0]] >= 0.0 and hi[grippers[0]] <= 1.0:
        g = grippers[0]
        dims[g]["min"], dims[g]["max"], dims[g]["unit"] = 0.0, 1.0, "1"
        contract["gripper_index"] = g
    return contract


def normalized_range(actions, mean, std):
    """The recorded range in the module's normalized units, as float32 values rounded inwards:
    the adapter maps the module's float32 output back by v * std + mean in double, and the
    world's contract allows 1e-9 beyond its bounds, so the bounds themselves must map back
    inside the recorded range."""
    lo, hi = actions.min(0).astype(np.float64), actions.max(0).astype(np.float64)
    lower, upper = [], []
    for i in range(len(lo)):
        a = np.float32((lo[i] - mean[i]) / std[i])
        while float(a) * std[i] + mean[i] < lo[i]:
            a = np.nextafter(a, np.float32(np.inf))
        b = np.float32((hi[i] - mean[i]) / std[i])
        while float(b) * std[i] + mean[i] > hi[i]:
            b = np.nextafter(b, np.float32(-np.inf))
        lower.append(float(a))
        upper.append(float(max(a, b)))
    return np.asarray(lower, dtype=np.float32), np.asarray(upper, dtype=np.float32)


def held_out(count, fifth=5):
    """Which episodes validate: every fifth by index (episode 4, 9, ...), none when there are
    fewer than five."""
    return [count >= fifth and i % fifth == fifth - 1 for i in range(count)]


def policy_samples(episodes, chunk):
    """From each frame t of each episode: the frame, the state, the next `chunk` actions (the
    last chunk padded by repeating the episode's last action)."""
    images, states, tasks, targets, owner = [], [], [], [], []
    for k, e in enumerate(episodes):
        padded = np.concatenate([e["actions"], np.repeat(e["actions"][-1:], chunk, 0)], 0)
        for t in range(len(e["actions"])):
            images.append(e["frames"][t])
            states.append(e["proprio"][t])
            tasks.append(e["task_id"])
            targets.append(padded[t:t + chunk])
            owner.append(k)
    return images, states, tasks, np.stack(targets), np.asarray(owner)
