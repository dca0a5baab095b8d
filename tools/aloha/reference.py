"""ALOHA sim as gym-aloha runs it (dm_control physics on the mujoco wheel), without rendering.

The reference side of the agreement check (check_agreement.py; docs/physics-world.md): the same
joint-action sequences from the same start, stepped by gym-aloha's own task classes
(gym_aloha.tasks.sim: before_step, get_reward) and dm_control's Physics.step, with the cameras
never rendered (gym-aloha's env renders three 640x480 cameras every step, ~300 ms here). Also
ACT's scripted end-effector procedure in gym-aloha's end-effector env, for comparing plans.
"""

import numpy as np
from dm_control import mujoco
from dm_control.rl import control

from gym_aloha.constants import ASSETS_DIR, DT
from gym_aloha.tasks import sim, sim_end_effector


class _NoImages:
    """A task's observation without the three rendered cameras."""

    @staticmethod
    def observe(task, physics):
        return {"qpos": task.get_qpos(physics), "env_state": task.get_env_state(physics)}


def _joint_env(task):
    xml = {"aloha_transfer_cube": "bimanual_viperx_transfer_cube.xml",
           "aloha_insertion": "bimanual_viperx_insertion.xml"}[task]
    cls = {"aloha_transfer_cube": sim.TransferCubeTask, "aloha_insertion": sim.InsertionTask}[task]
    physics = mujoco.Physics.from_xml_path(str(ASSETS_DIR / xml))
    t = cls(random=False)
    t.get_observation = lambda p: _NoImages.observe(t, p)
    return control.Environment(physics, t, time_limit=float("inf"), control_timestep=DT,
                               n_sub_steps=None, flat_observation=False)


def start_pose(task, free_joints):
    """BOX_POSE[0] as gym-aloha's env sets it for a start (free joints in qpos order)."""
    names = {"aloha_transfer_cube": ["red_box_joint"],
             "aloha_insertion": ["red_peg_joint", "blue_socket_joint"]}[task]
    return np.concatenate([np.asarray(free_joints[n], dtype=np.float64) for n in names])


def replay(task, free_joints, actions):
    """Per-step rewards (gym-aloha's get_reward) for the joint actions from the start."""
    env = _joint_env(task)
    sim.BOX_POSE[0] = start_pose(task, free_joints)
    env.reset()
    physics, t = env.physics, env.task
    n_sub = int(round(DT / physics.timestep()))
    rewards = []
    for a in actions:
        t.before_step(np.asarray(a, dtype=np.float64), physics)
        physics.step(n_sub)
        rewards.append(int(t.get_reward(physics)))
    return rewards, physics.data.qpos.copy()


def _axis_angle(axis, degrees):
    half = np.radians(degrees) / 2
    return np.concatenate([[np.cos(half)], np.sin(half) * np.asarray(axis, dtype=np.float64)])


def _qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def _interpolate(waypoints, t):
    nxt = next((i for i, w in enumerate(waypoints) if w[0] > t), len(waypoints))
    if nxt == 0 or nxt == len(waypoints):
        w = waypoints[min(nxt, len(waypoints) - 1)]
        return w[1], w[2], w[3]
    (t0, x0, q0, g0), (t1, x1, q1, g1) = waypoints[nxt - 1], waypoints[nxt]
    f = (t - t0) / (t1 - t0 + 1e-8)
    return x0 + (x1 - x0) * f, q0 + (q1 - q0) * f, g0 + (g1 - g0) * f


def ee_plan(task, free_joints, steps=401, zero_weld_offset=True):
    """ACT's scripted demonstration (no noise) in gym-aloha's end-effector env: the joint trajectory
    as record_sim_episodes.py keeps it (joint positions, grippers replaced by the commands)."""
    from gym_aloha.constants import normalize_puppet_gripper_position as norm
    xml = {"aloha_transfer_cube": "bimanual_viperx_end_effector_transfer_cube.xml",
           "aloha_insertion": "bimanual_viperx_end_effector_insertion.xml"}[task]
    physics = mujoco.Physics.from_xml_path(str(ASSETS_DIR / xml))
    if zero_weld_offset:
        physics.model.eq_data[:, 3:6] = 0
    pose = start_pose(task, free_joints)
    if task == "aloha_transfer_cube":
        sim_end_effector.sample_box_pose = lambda seed=None: pose
        t = sim_end_effector.TransferCubeEndEffectorTask(random=False)
    else:
        sim_end_effector.sample_insertion_pose = lambda seed=None: (pose[:7], pose[7:])
        t = sim_end_effector.InsertionEndEffectorTask(random=False)
    t.get_observation = lambda p: {"qpos": t.get_qpos(p), "env_state": t.get_env_state(p),
                                   "mocap_pose_left": np.concatenate([p.data.mocap_pos[0], p.data.mocap_quat[0]]).copy(),
                                   "mocap_pose_right": np.concatenate([p.data.mocap_pos[1], p.data.mocap_quat[1]]).copy(),
                                   "gripper_ctrl": p.data.ctrl.copy()}
    env = control.Environment(physics, t, time_limit=float("inf"), control_timestep=DT,
                              n_sub_steps=None, flat_observation=False)
    ts = env.reset()
    ml, mr = ts.observation["mocap_pose_left"], ts.observation["mocap_pose_right"]
    if task == "aloha_transfer_cube":
        box = ts.observation["env_state"][:3]
        pick = _qmul(mr[3:], _axis_angle([0, 1, 0], -60))
        meet_left = _axis_angle([1, 0, 0], 90)
        meet = np.array([0, 0.5, 0.25])
        ident = np.array([1.0, 0, 0, 0])
        left = [(0, ml[:3], ml[3:], 0), (100, meet + [-0.1, 0, -0.02], meet_left, 1),
                (260, meet + [0.02, 0, -0.02], meet_left, 1), (310, meet + [0.02, 0, -0.02], meet_left, 0),
                (360, meet + [-0.1, 0, -0.02], ident, 0), (400, meet + [-0.1, 0, -0.02], ident, 0)]
        right = [(0, mr[:3], mr[3:], 0), (90, box + [0, 0, 0.08], pick, 1), (130, box + [0, 0, -0.015], pick, 1),
                 (170, box + [0, 0, -0.015], pick, 0), (200, meet + [0.05, 0, 0], pick, 0), (220, meet, pick, 0),
                 (310, meet, pick, 1), (360, meet + [0.1, 0, 0], pick, 1), (400, meet + [0.1, 0, 0], pick, 1)]
    else:
        peg, socket = ts.observation["env_state"][:3], ts.observation["env_state"][7:10]
        pr = _qmul(mr[3:], _axis_angle([0, 1, 0], -60))
        pl = _qmul(mr[3:], _axis_angle([0, 1, 0], 60))
        meet = np.array([0, 0.5, 0.15])
        lift = 0.00715
        left = [(0, ml[:3], ml[3:], 0), (120, socket + [0, 0, 0.08], pl, 1), (170, socket + [0, 0, -0.03], pl, 1),
                (220, socket + [0, 0, -0.03], pl, 0), (285, meet + [-0.1, 0, 0], pl, 0),
                (340, meet + [-0.05, 0, 0], pl, 0), (400, meet + [-0.05, 0, 0], pl, 0)]
        right = [(0, mr[:3], mr[3:], 0), (120, peg + [0, 0, 0.08], pr, 1), (170, peg + [0, 0, -0.03], pr, 1),
                 (220, peg + [0, 0, -0.03], pr, 0), (285, meet + [0.1, 0, lift], pr, 0),
                 (340, meet + [0.05, 0, lift], pr, 0), (400, meet + [0.05, 0, lift], pr, 0)]
    traj = []

    def row(o):
        q = o["qpos"].copy()
        q[6] = norm(o["gripper_ctrl"][0])
        q[13] = norm(o["gripper_ctrl"][2])
        return q
    traj.append(row(ts.observation))
    rewards = []
    for step in range(steps - 1):
        lx, lq, lg = _interpolate(left, step)
        rx, rq, rg = _interpolate(right, step)
        ts = env.step(np.concatenate([lx, lq, [lg], rx, rq, [rg]]))
        traj.append(row(ts.observation))
        rewards.append(ts.reward)
    return np.array(traj), rewards
