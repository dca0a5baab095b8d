"""Loads a LeRobot dataset that Kosmos wrote (kosmos-cli dataset export --format lerobot) with
LeRobot's own LeRobotDataset, and compares every row it gives with the same runs exported in
Kosmos's own layout (kosmos-cli dataset export, same filters): actions exactly as stored (and
LeRobot's float32 tensors equal to them rounded to float32), frames per pixel
(0 levels for a --lossless export; the H.264 export's worst difference and PSNR are reported).

    .lerobot/venv/bin/python tools/lerobot/check_export.py LEROBOT_DIR KOSMOS_DIR

Prints one JSON object with the versions and the figures; exits 1 when a value differs where it
must not. docs/datasets.md ("Writing LeRobot datasets") records a run of it.
"""

import json
import math
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np
from PIL import Image
from lerobot.datasets.lerobot_dataset import LeRobotDataset


def main() -> int:
    lerobot_dir, kosmos_dir = Path(sys.argv[1]), Path(sys.argv[2])
    ds = LeRobotDataset("kosmos/export", root=lerobot_dir, video_backend="pyav")
    index = json.loads((kosmos_dir / "dataset.json").read_text())
    episodes = index["episodes"]
    worst_action = 0.0
    worst_level = 0
    worst_psnr = math.inf
    rows = 0
    failures = []
    if ds.meta.total_episodes != len(episodes):
        failures.append(f"{ds.meta.total_episodes} episodes, the Kosmos export {len(episodes)}")
    for e, entry in enumerate(episodes):
        folder = kosmos_dir / entry["dir"]
        actions = json.loads((folder / "actions.json").read_text())["policy_actions"]
        frames = sorted((folder / "frames").glob("*.png"))
        start = int(ds.meta.episodes[e]["dataset_from_index"])
        length = int(ds.meta.episodes[e]["length"])
        if length != len(frames):
            failures.append(f"episode {e}: {length} rows, {len(frames)} frames in the Kosmos export")
            continue
        for k in range(length):
            item = ds[start + k]
            want = actions[min(k, len(actions) - 1)]  # the last frame repeats the last action
            # As stored (LeRobot's Arrow table): float64, exactly the run's actions. LeRobot's
            # __getitem__ makes torch tensors of the default dtype (float32): the same values
            # rounded to float32.
            stored_row = ds.hf_dataset.data.column("action")[start + k].as_py()
            worst_action = max(worst_action, float(np.max(np.abs(np.array(stored_row) - want))))
            as_float32 = np.array(want, dtype=np.float64).astype(np.float32)
            if not np.array_equal(item["action"].numpy(), as_float32):
                failures.append(f"episode {e} row {k}: LeRobot's action tensor is not float32(action)")
            image = (item["observation.image"].numpy().transpose(1, 2, 0) * 255.0).round()
            stored = np.asarray(Image.open(frames[k]).convert("RGB"), dtype=np.float64)
            diff = np.abs(image - stored)
            worst_level = max(worst_level, int(diff.max()))
            mse = float(np.mean(diff**2))
            worst_psnr = min(worst_psnr, math.inf if mse == 0 else 10 * math.log10(255**2 / mse))
            if item["task"] != entry["instruction"]:
                failures.append(f"episode {e} row {k}: task {item['task']!r}")
            rows += 1
    lossless = "gbrp" in json.dumps(ds.meta.info["features"]["observation.image"])
    if worst_action != 0.0:
        failures.append(f"an action differs by {worst_action}")
    if lossless and worst_level != 0:
        failures.append(f"a lossless frame differs by {worst_level} levels")
    print(json.dumps({
        "lerobot": version("lerobot"), "av": version("av"), "pyarrow": version("pyarrow"),
        "episodes": ds.meta.total_episodes, "rows_compared": rows, "lossless": lossless,
        "worst_action_difference": worst_action, "worst_pixel_difference_levels": worst_level,
        "worst_frame_psnr_db": None if math.isinf(worst_psnr) else round(worst_psnr, 2),
        "failures": failures}, indent=1))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
