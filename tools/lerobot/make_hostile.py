"""Hostile variants of the data file LeRobot wrote for tests/fixtures/lerobot/pusht-h264, one
defect each, for tests/dataset/tst_lerobot.cpp (LeRobotHostile). Only the one value is changed;
everything else is LeRobot's own file, rewritten by pyarrow with its schema and metadata.

    .arrow/venv/bin/python tools/lerobot/make_hostile.py
"""

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

here = Path(__file__).resolve().parents[2] / "tests/fixtures/lerobot"
source = here / "pusht-h264/data/chunk-000/file-000.parquet"
out = here / "hostile"


def column(table: pa.Table, name: str) -> list:
    return table.column(name).to_pylist()


def write(table: pa.Table, name: str, column_name: str, values: list) -> None:
    i = table.schema.get_field_index(column_name)
    field = table.schema.field(i)
    table = table.set_column(i, field, pa.array(values, type=field.type))
    pq.write_table(table, out / f"{name}.parquet")


def main() -> None:
    table = pq.read_table(source)
    action = column(table, "action")
    action[5] = [float("nan"), action[5][1]]
    write(table, "nan-action", "action", action)
    ts = column(table, "timestamp")
    ts[3] = ts[1]  # episode 0's row 3 goes back in time
    write(table, "time-back", "timestamp", ts)
    frame = column(table, "frame_index")
    frame[30] = 7  # episode 1's row 6 says frame 7
    write(table, "frame-index", "frame_index", frame)
    print("wrote", sorted(p.name for p in out.glob("*.parquet")))


if __name__ == "__main__":
    main()
