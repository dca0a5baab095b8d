"""The reference world server's side of frames through shared memory
(python/kosmos_world/server.py: SharedFrames, share): a segment is mapped only by a kosmos-world-*
name (no path, no traversal), only when it is at least the size offered and holds the client's
token; frames are placed when they fit, else the reply carries them inline; a declined offer
keeps the segment the connection had. Run by ctest (label python) with Debian's python3-numpy;
the C++ side and the whole exchange are tests/remote/tst_remote_world.cpp's."""

import os
import sys
import uuid
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE / "python"))
from kosmos_world import server  # noqa: E402


def segment(size, token):
    name = f"kosmos-world-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    path = os.path.join(server.SHM_DIR, name)
    with open(path, "wb") as f:
        f.write(token.ljust(size, b"\0"))
    return name, path


def main():
    token = os.urandom(32)
    name, path = segment(4 * 8 * 8 * 3, token)
    try:
        shared, reply = server.share({"name": name, "size": 4 * 8 * 8 * 3, "token": token}, None)
        assert reply == {"shared": True}, reply
        frames = np.arange(2 * 8 * 8 * 3, dtype=np.uint8).reshape(2, 8, 8, 3)
        placed = shared.place(frames)
        assert placed == {"offset": 0, "shape": [2, 8, 8, 3]}, placed
        assert open(path, "rb").read(frames.nbytes) == frames.tobytes()
        assert shared.place(np.zeros((5, 8, 8, 3), np.uint8)) is None, "too large: inline"

        def declined(request, says):
            kept, answer = server.share(request, shared)
            assert kept is shared, "a declined offer keeps the segment the connection had"
            assert answer["shared"] is False and says in answer["why"], (request, answer)

        declined({"name": "../" + name, "size": 16, "token": token}, "segment name")
        declined({"name": "kosmos-world-a/b", "size": 16, "token": token}, "segment name")
        declined({"name": 7, "size": 16, "token": token}, "segment name")
        declined({"name": "kosmos-world-absent-1", "size": 64, "token": token}, "No such file")
        declined({"name": name, "size": 1 << 20, "token": token}, "smaller than")
        declined({"name": name, "size": 64, "token": os.urandom(32)}, "token")
        declined({"name": name, "size": 64, "token": b"short"}, "16 or more bytes")
        declined({"name": name, "size": -1, "token": token}, "positive integer")
        shared.close()
    finally:
        os.unlink(path)
    print("ok")


if __name__ == "__main__":
    main()
