"""python -m kosmos_world gym ENV_ID [--import gym_pusht] [--kwargs JSON] [--port N]
python -m kosmos_world model MODULE:FACTORY [--args JSON] [--port N]

Serves a gymnasium environment (one per connection) or a Python world model (FACTORY(**args)
returns an object with metadata(), reset(), step(): kosmos_world.protocol) to Kosmos's
remote.world adapter. Port 0 picks a free port; the first line printed names the address."""

import argparse
import hashlib
import importlib
import json
import os
import sys

from .server import run


def _action_contract(path, parser):
    """{"dimensions": [...], "source": {"file", "sha256"}} from a contract or task file."""
    try:
        raw = open(path, "rb").read(1 << 20)
        document = json.loads(raw)
    except (OSError, ValueError) as e:
        parser.error(f"--action-contract {path}: {e}")
    if isinstance(document, dict) and isinstance(document.get("action"), dict):
        document = document["action"]
    if not isinstance(document, dict) or not isinstance(document.get("dimensions"), list):
        parser.error(f"--action-contract {path}: no dimensions list (nor action.dimensions)")
    return {"dimensions": document["dimensions"],
            "source": {"file": os.path.basename(path),
                       "sha256": hashlib.sha256(raw).hexdigest()}}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="kosmos_world", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    sub = parser.add_subparsers(dest="what", required=True)
    gym = sub.add_parser("gym", help="a registered gymnasium environment")
    gym.add_argument("env_id")
    gym.add_argument("--import", dest="imports", action="append", default=[],
                     help="a module to import first (it registers the environment)")
    gym.add_argument("--kwargs", default="{}", help="gym.make keyword arguments (JSON)")
    gym.add_argument("--success-key", default="is_success")
    gym.add_argument("--reward-threshold", type=float, default=None)
    gym.add_argument("--action-names", default=None, help="comma-separated")
    gym.add_argument("--action-contract", default=None, metavar="FILE",
                     help="the actions' names, units and bounds where the environment's declared "
                     "space is not their range (gym-aloha): a JSON file with dimensions "
                     "[{name, unit, min, max}], or a task file whose action holds them "
                     "(adapters/mjcf/tasks/aloha_*.json)")
    model = sub.add_parser("model", help="a Python world model: MODULE:FACTORY")
    model.add_argument("factory")
    model.add_argument("--args", default="{}", help="FACTORY's keyword arguments (JSON)")
    model.add_argument("--shared", action="store_true",
                       help="one instance for every connection (its calls serialized)")
    options = parser.parse_args(argv)
    if options.what == "gym":
        from .gym_world import GymWorld

        kwargs = json.loads(options.kwargs)
        names = options.action_names.split(",") if options.action_names else None
        contract = None
        if options.action_contract:
            contract = _action_contract(options.action_contract, parser)

        def factory():
            return GymWorld(options.env_id, kwargs, options.imports, options.success_key,
                            options.reward_threshold, names, contract)
    else:
        module, _, name = options.factory.partition(":")
        if not name:
            parser.error("model: FACTORY is MODULE:NAME")
        make = getattr(importlib.import_module(module), name)
        args = json.loads(options.args)
        if options.shared:
            made = []

            def factory():  # made once, on the server's one world thread
                if not made:
                    made.append(make(**args))
                return made[0]
        else:
            def factory():
                return make(**args)
    run(factory, options.host, options.port, shared=options.what == "model" and options.shared)
    return 0


if __name__ == "__main__":
    sys.exit(main())
