"""A gymnasium environment as a Kosmos world: reset with a seed, step with a chunk of actions,
the rendered frame after each, and success from the environment's own definition
(info["is_success"] by default, or a reward threshold). docs/remote-worlds.md."""

import importlib
from importlib import metadata as importlib_metadata

import numpy as np


def _version(distribution):
    try:
        return importlib_metadata.version(distribution)
    except importlib_metadata.PackageNotFoundError:
        return None


class GymWorld:
    def __init__(self, env_id, kwargs=None, imports=(), success_key="is_success",
                 reward_threshold=None, action_names=None, action_contract=None):
        """action_contract: {"dimensions": [{"name", "unit", "min", "max"}, ...], "source": ...}
        for an environment whose declared action space is not the range of its actions
        (gym-aloha declares Box(-1, 1) and takes joint angles beyond it): its names, units and
        bounds replace the declared ones, which the metadata keeps beside them."""
        import gymnasium as gym

        for module in imports:
            importlib.import_module(module)  # registers the package's environments
        kwargs = dict(kwargs or {})
        kwargs.setdefault("render_mode", "rgb_array")
        self.env_id = env_id
        self.kwargs = kwargs
        self.env = gym.make(env_id, **kwargs)
        self.success_key = success_key
        self.reward_threshold = reward_threshold
        space = self.env.action_space
        if not hasattr(space, "low") or len(space.shape) != 1:
            raise ValueError(f"{env_id}: the action space {space} is not a 1-D Box")
        width = space.shape[0]
        self.action_names = list(action_names or [f"a{i}" for i in range(width)])
        if len(self.action_names) != width:
            raise ValueError(f"{len(self.action_names)} action names for {width} values")
        self.low = np.asarray(space.low, dtype=np.float64)
        self.high = np.asarray(space.high, dtype=np.float64)
        self.units = ["1"] * width
        self.bounds_note = None
        if action_contract is not None:
            dims = action_contract.get("dimensions") if isinstance(action_contract, dict) else None
            if not isinstance(dims, list) or len(dims) != width:
                raise ValueError(f"{env_id}: the action contract has "
                                 f"{len(dims) if isinstance(dims, list) else 'no'} dimensions; "
                                 f"the action space has {width}")
            try:
                low = np.asarray([float(d["min"]) for d in dims], dtype=np.float64)
                high = np.asarray([float(d["max"]) for d in dims], dtype=np.float64)
                names = [str(d["name"]) for d in dims]
                units = [str(d.get("unit", "1")) for d in dims]
            except (KeyError, TypeError, ValueError) as e:
                raise ValueError(f"{env_id}: the action contract's dimensions need name, min "
                                 f"and max: {e}") from None
            if not np.all(np.isfinite(low)) or not np.all(np.isfinite(high)) or np.any(
                    low > high):
                raise ValueError(f"{env_id}: the action contract's bounds are not finite "
                                 "ranges with min <= max")
            self.bounds_note = {"source": action_contract.get("source"),
                                "declared_space": {"low": self.low.tolist(),
                                                   "high": self.high.tolist()}}
            self.low, self.high, self.units = low, high, units
            if action_names is None:
                self.action_names = names
        self._success = None
        self._reward = None
        self._done = False
        self._obs = None
        self._info = {}
        self.env_seed = None  # the seed of the last reset, as the environment took it
        self.env.reset(seed=0)
        first = self._render()
        self.height, self.width = int(first.shape[0]), int(first.shape[1])
        spec = self.env.spec
        self.fps = float(self.env.metadata.get("render_fps") or 10)
        self.package = spec.entry_point.split(":")[0].split(".")[0] if spec and isinstance(
            spec.entry_point, str) else None

    def _render(self):
        frame = self.env.render()
        frame = np.asarray(frame)
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"{self.env_id}: render() gave {frame.dtype} {frame.shape}, "
                             "not uint8 [H, W, 3]")
        return np.ascontiguousarray(frame)

    def metadata(self):
        package = self.package
        return {
            "kind": "simulator",
            "name": self.env_id,
            "env_id": self.env_id,
            "env_kwargs": {k: v for k, v in self.kwargs.items()},
            "versions": {"gymnasium": _version("gymnasium"),
                         "mujoco": _version("mujoco"),
                         **({package.replace("_", "-"): _version(package.replace("_", "-"))}
                            if package else {})},
            "action": {"names": self.action_names, "min": self.low.tolist(),
                       "max": self.high.tolist(), "units": self.units},
            **({"action_bounds": self.bounds_note} if self.bounds_note else {}),
            "frame": {"width": self.width, "height": self.height},
            "control_rate_hz": self.fps,
            # The environment's own episode length (a TimeLimit): a protocol's horizon beyond it
            # gets the last frame held, which validation calls a frozen sequence.
            "max_episode_steps": (self.env.spec.max_episode_steps if self.env.spec else None),
            "chunk_lengths": [],
            "success": ({"info_key": self.success_key} if self.reward_threshold is None
                        else {"reward_at_least": self.reward_threshold}),
        }

    def reset(self, frame, instruction, seed, start_state):
        # Kosmos's seeds are 64-bit; environments that seed numpy's legacy RandomState (gym-aloha)
        # take 32 bits only: every environment is reset with the seed mod 2^32, recorded in the
        # state as env_seed.
        self.env_seed = int(seed) % (2 ** 32)
        self._obs, info = self.env.reset(seed=self.env_seed)
        self._info = info if isinstance(info, dict) else {}
        self._success = self._success_of(None, info)
        self._reward = None
        self._done = False
        return self._render()[None]

    def _success_of(self, reward, info):
        if self.reward_threshold is not None:
            return None if reward is None else bool(reward >= self.reward_threshold)
        value = info.get(self.success_key) if isinstance(info, dict) else None
        return None if value is None else bool(value)

    def step(self, actions):
        frames = []
        for action in np.asarray(actions, dtype=np.float64):
            if not self._done:
                self._obs, reward, terminated, truncated, info = self.env.step(
                    action.astype(self.env.action_space.dtype))
                self._reward = float(reward)
                self._info = info if isinstance(info, dict) else {}
                success = self._success_of(self._reward, info)
                # Success once reached stays reached (a simulator episode ends there).
                self._success = bool(self._success) or bool(success) if success is not None \
                    else self._success
                self._done = bool(terminated or truncated)
            frames.append(self._render())  # after the end: the last frame, held
        return np.stack(frames)

    def success(self):
        return self._success

    def reward(self):
        return self._reward

    def done(self):
        return self._done

    def proprio(self):
        obs = self._obs
        if isinstance(obs, dict):
            for key in ("agent_pos", "state", "qpos"):
                if key in obs:
                    return np.asarray(obs[key], dtype=np.float64).ravel()
        return None

    def state(self):
        """The observation's numeric vectors, and the numeric entries of the step's info (the
        simulator's own account: PushT's block_pose and goal_pose, for example) as info.KEY."""
        obs = self._obs
        out = {"env_seed": [float(self.env_seed)]} if self.env_seed is not None else {}
        if isinstance(obs, np.ndarray) and obs.size <= 4096 and obs.dtype.kind in "fiub":
            out["observation"] = obs.astype(np.float64).ravel().tolist()
        elif isinstance(obs, dict):
            for key, value in obs.items():
                value = np.asarray(value)
                if value.size <= 4096 and value.dtype.kind in "fiub" and value.ndim <= 1:
                    out[key] = value.astype(np.float64).ravel().tolist()
        for key, value in self._info.items():
            try:
                value = np.asarray(value)
            except (TypeError, ValueError):
                continue
            if 0 < value.size <= 64 and value.dtype.kind in "fiub" and value.ndim <= 1 \
                    and np.all(np.isfinite(value.astype(np.float64))):
                out["info." + str(key)] = value.astype(np.float64).ravel().tolist()
        return out or None
