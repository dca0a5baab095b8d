"""A large LeRobot v3.0 dataset for the reader's benchmark (bench/LeRobotBench.cpp,
docs/benchmarks.md "LeRobot datasets"): by default 1,000 episodes of 500 frames (500,000 frames),
one 96x96 camera. A timing fixture, not test data: written here with pyarrow and PyAV in
LeRobot's v3.0 layout (100 episodes per data and video file, LeRobot's own encoding settings:
libx264, yuv420p, a key frame every 2 frames), since LeRobot's writer would take hours on this
machine. Every value the reader checks is consistent (counts, ranges, timestamps, tasks).

    python make_bench_dataset.py OUT_DIR [EPISODES] [FRAMES]
"""

import json
import sys
from pathlib import Path

import av
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

FPS = 10
PER_FILE = 100
SIZE = 96


def frame(i: int) -> np.ndarray:
    img = np.full((SIZE, SIZE, 3), 235, np.uint8)
    x = (i * 3) % (SIZE - 16)
    y = (i * 7) % (SIZE - 16)
    img[y:y + 16, x:x + 16] = (40, 90 + i % 120, 200)
    return img


def main() -> None:
    out = Path(sys.argv[1])
    episodes = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    length = int(sys.argv[3]) if len(sys.argv) > 3 else 500
    (out / "meta/episodes/chunk-000").mkdir(parents=True, exist_ok=True)
    (out / "data/chunk-000").mkdir(parents=True, exist_ok=True)
    (out / "videos/observation.image/chunk-000").mkdir(parents=True, exist_ok=True)
    tasks = ["push the block left", "push the block right"]
    pq.write_table(pa.table({"task_index": pa.array([0, 1], pa.int64()),
                             "__index_level_0__": pa.array(tasks, pa.large_string())}),
                   out / "meta/tasks.parquet")
    rng = np.random.default_rng(0)
    ep_rows = {k: [] for k in ("episode_index", "tasks", "length", "data/chunk_index", "data/file_index",
                               "dataset_from_index", "dataset_to_index",
                               "videos/observation.image/chunk_index", "videos/observation.image/file_index",
                               "videos/observation.image/from_timestamp", "videos/observation.image/to_timestamp")}
    index = 0
    for f in range(0, (episodes + PER_FILE - 1) // PER_FILE):
        eps = range(f * PER_FILE, min(episodes, (f + 1) * PER_FILE))
        n = len(eps) * length
        container = av.open(str(out / f"videos/observation.image/chunk-000/file-{f:03d}.mp4"), "w")
        stream = container.add_stream("libx264", rate=FPS)
        stream.width = stream.height = SIZE
        stream.pix_fmt = "yuv420p"
        stream.options = {"g": "2", "crf": "30", "preset": "ultrafast"}
        for i in range(n):
            for packet in stream.encode(av.VideoFrame.from_ndarray(frame(index + i), format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
        container.close()
        ts = np.tile(np.arange(length, dtype=np.float32) / FPS, len(eps))
        frame_index = np.tile(np.arange(length, dtype=np.int64), len(eps))
        episode_index = np.repeat(np.array(list(eps), np.int64), length)
        task_index = episode_index % 2
        action = rng.normal(0, 1, (n, 2)).astype(np.float32)
        state = np.cumsum(action, axis=0).astype(np.float32)
        pq.write_table(pa.table({
            "observation.state": pa.FixedSizeListArray.from_arrays(pa.array(state.reshape(-1)), 2),
            "action": pa.FixedSizeListArray.from_arrays(pa.array(action.reshape(-1)), 2),
            "timestamp": pa.array(ts),
            "frame_index": pa.array(frame_index),
            "episode_index": pa.array(episode_index),
            "index": pa.array(np.arange(index, index + n, dtype=np.int64)),
            "task_index": pa.array(task_index.astype(np.int64)),
        }), out / f"data/chunk-000/file-{f:03d}.parquet")
        for j, e in enumerate(eps):
            ep_rows["episode_index"].append(e)
            ep_rows["tasks"].append([tasks[e % 2]])
            ep_rows["length"].append(length)
            ep_rows["data/chunk_index"].append(0)
            ep_rows["data/file_index"].append(f)
            ep_rows["dataset_from_index"].append(index + j * length)
            ep_rows["dataset_to_index"].append(index + (j + 1) * length)
            ep_rows["videos/observation.image/chunk_index"].append(0)
            ep_rows["videos/observation.image/file_index"].append(f)
            ep_rows["videos/observation.image/from_timestamp"].append(j * length / FPS)
            ep_rows["videos/observation.image/to_timestamp"].append((j + 1) * length / FPS)
        index += n
        print(f"file {f}: episodes {eps.start}..{eps.stop - 1}", flush=True)
    pq.write_table(pa.table(ep_rows), out / "meta/episodes/chunk-000/file-000.parquet")
    info = {
        "codebase_version": "v3.0", "robot_type": "bench", "total_episodes": episodes,
        "total_frames": episodes * length, "total_tasks": 2, "chunks_size": 1000, "fps": FPS,
        "data_path": "data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet",
        "video_path": "videos/{video_key}/chunk-{chunk_index:03d}/file-{file_index:03d}.mp4",
        "features": {
            "observation.image": {"dtype": "video", "shape": [SIZE, SIZE, 3],
                                  "names": ["height", "width", "channel"]},
            "observation.state": {"dtype": "float32", "shape": [2], "names": ["x", "y"]},
            "action": {"dtype": "float32", "shape": [2], "names": ["dx", "dy"]},
            "timestamp": {"dtype": "float32", "shape": [1], "names": None},
            "frame_index": {"dtype": "int64", "shape": [1], "names": None},
            "episode_index": {"dtype": "int64", "shape": [1], "names": None},
            "index": {"dtype": "int64", "shape": [1], "names": None},
            "task_index": {"dtype": "int64", "shape": [1], "names": None},
        },
    }
    (out / "meta/info.json").write_text(json.dumps(info, indent=4))


if __name__ == "__main__":
    main()
