"""The gym server's --action-contract (python/kosmos_world: GymWorld, __main__._action_contract)
with the real gym-pusht: the stated names, units and bounds replace the environment's declared
ones, which the metadata keeps beside them with the file's name and SHA-256; a contract of
another width, without bounds, or with min above max is refused by name; the environment's
TimeLimit is in the metadata; a task file's action
(adapters/mjcf/tasks/aloha_transfer_cube.json, gym-aloha's joint limits) is read as a contract.
Run by ctest (label python) with .worlds/venv (scripts/setup-worlds.sh)."""

import argparse
import hashlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE / "python"))
from kosmos_world.__main__ import _action_contract  # noqa: E402
from kosmos_world.gym_world import GymWorld  # noqa: E402


def refused(contract, says):
    try:
        GymWorld("gym_pusht/PushT-v0", {"obs_type": "pixels_agent_pos"}, ["gym_pusht"],
                 action_contract=contract)
    except ValueError as e:
        assert says in str(e), (says, str(e))
        return
    raise AssertionError(f"accepted: {contract}")


def main():
    dims = [{"name": "x", "unit": "px", "min": 10, "max": 500},
            {"name": "y", "unit": "px", "min": 20, "max": 490}]
    world = GymWorld("gym_pusht/PushT-v0", {"obs_type": "pixels_agent_pos"}, ["gym_pusht"],
                     action_contract={"dimensions": dims, "source": {"file": "t.json"}})
    meta = world.metadata()
    assert meta["action"] == {"names": ["x", "y"], "min": [10.0, 20.0], "max": [500.0, 490.0],
                              "units": ["px", "px"]}, meta["action"]
    assert meta["action_bounds"]["declared_space"] == {"low": [0.0, 0.0],
                                                       "high": [512.0, 512.0]}, meta
    assert meta["action_bounds"]["source"] == {"file": "t.json"}
    assert meta["max_episode_steps"] == 300, "PushT's TimeLimit, for the protocol's horizon"
    assert "action_bounds" not in GymWorld("gym_pusht/PushT-v0", {}, ["gym_pusht"]).metadata()

    refused({"dimensions": dims + dims[:1]}, "the action contract has 3 dimensions")
    refused({"dimensions": [{"name": "x"}, {"name": "y"}]}, "need name, min and max")
    refused({"dimensions": [dims[0], {"name": "y", "min": 5, "max": 1}]}, "min <= max")
    refused({}, "the action contract has no dimensions")

    task = HERE / "adapters/mjcf/tasks/aloha_transfer_cube.json"
    parser = argparse.ArgumentParser()
    contract = _action_contract(str(task), parser)
    assert len(contract["dimensions"]) == 14
    assert contract["dimensions"][1]["name"] == "left_arm_shoulder"
    assert contract["source"] == {"file": "aloha_transfer_cube.json",
                                  "sha256": hashlib.sha256(task.read_bytes()).hexdigest()}
    print("ok")


if __name__ == "__main__":
    main()
