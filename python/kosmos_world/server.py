"""The reference world server (docs/remote-worlds.md): openpi's wire (websockets, msgpack-numpy,
metadata first, one binary request and one binary reply; an error is the traceback as a text
frame, then close code 1011), GET /healthz, pings every 20 s so a long step keeps its client.

Requests: {"type": "reset", "seed", "instruction", "frame" (uint8 [H, W, 3] or None),
"start_state"} -> {"frames": uint8 [N, H, W, 3], ...}; {"type": "step", "actions": float64
[T, D]} -> {"frames": uint8 [T, H, W, 3], ...}; {"type": "health"} -> {"ok": True}; {"type": "share", "name", "size", "token"} -> {"shared":
True} or {"shared": False, "why"} (frames through a client's shared memory, below). Every reply
to reset and step also carries "success", "reward", "done", "state", "proprio" (float64 [P], what
a policy reads of the robot's own state; None where the world has none) and "server_timing":
{"call_ms" (the request from its arrival to its reply), "world_ms" (the world's own call)}.

Frames through shared memory (a client on the same machine; docs/remote-worlds.md): the client
makes a POSIX shared-memory segment (/dev/shm/NAME), writes a random token at its start and
offers it with a "share" request; the server maps it and checks the token (a server reached
through a tunnel sees another machine's /dev/shm and declines). From then on a reply whose frames
fit carries "frames_shared": {"offset": 0, "shape": [N, H, W, 3]} instead of "frames", the bytes
written into the segment before the reply is sent; the client copies them out before its next
request, and the server writes only while it answers one. A larger reply goes inline as before.
"""

import asyncio
import concurrent.futures
import functools
import http
import logging
import mmap
import os
import re
import sys
import time
import traceback

import numpy as np

from . import msgpack_numpy

try:  # the implementation whose handler and process_request signatures these are
    from websockets.legacy.server import serve
except ImportError:  # pragma: no cover
    from websockets import serve

log = logging.getLogger("kosmos_world")


def _optional(world, name):
    method = getattr(world, name, None)
    return method() if callable(method) else None


# The largest request a server takes (a learned model's start frame is the biggest: 256 MiB
# is a 4K RGB frame ten times over); a larger one closes the connection with 1009.
MAX_REQUEST_BYTES = 256 << 20


async def health(path, request_headers):
    """GET /healthz answers 200 (the clients' availability check); anything else is a websocket."""
    if path == "/healthz":
        return http.HTTPStatus.OK, [], b"OK\n"
    return None


async def send_error(websocket):
    """A failed request: the traceback as a text frame, then close code 1011."""
    await websocket.send(traceback.format_exc())
    await websocket.close(code=1011, reason="Internal server error")


async def listen(handler, host, port, label, max_size=MAX_REQUEST_BYTES, ready=None):
    """Serves `handler` with GET /healthz and pings (every KOSMOS_WORLD_PING_S seconds, 20 by
    default, so a client whose call runs long keeps its connection); prints "LABEL: listening on
    ws://HOST:PORT" (the port chosen when 0 was asked for) and runs until cancelled."""
    ping = float(os.environ.get("KOSMOS_WORLD_PING_S", "20"))
    async with serve(handler, host, port, max_size=max_size, compression=None,
                     ping_interval=ping, ping_timeout=ping, process_request=health) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"{label}: listening on ws://{host}:{port}", flush=True)
        if ready:
            ready(port)
        await asyncio.Future()


# Where this machine's POSIX shared memory is; KOSMOS_WORLD_SHM_DIR points elsewhere to play a
# server on another machine (the tests' tunnel case).
SHM_DIR = os.environ.get("KOSMOS_WORLD_SHM_DIR", "/dev/shm")
_SHM_NAME = re.compile(r"^kosmos-world-[A-Za-z0-9_.-]{1,200}$")


class SharedFrames:
    """A client's shared-memory segment, mapped by name (not through multiprocessing's
    SharedMemory, whose resource tracker would unlink a segment this process does not own)."""

    def __init__(self, name, size, token):
        if not isinstance(name, str) or not _SHM_NAME.match(name):
            raise ValueError(f"share: {name!r} is not a kosmos-world-* segment name")
        if not isinstance(size, int) or size < 1:
            raise ValueError(f"share: size {size!r} is not a positive integer")
        if not isinstance(token, bytes) or len(token) < 16 or len(token) > size:
            raise ValueError("share: the token must be 16 or more bytes inside the segment")
        fd = os.open(os.path.join(SHM_DIR, name), os.O_RDWR | os.O_NOFOLLOW)
        try:
            if os.fstat(fd).st_size < size:
                raise ValueError(f"share: {SHM_DIR}/{name} is smaller than {size} bytes")
            self.map = mmap.mmap(fd, size)
        finally:
            os.close(fd)
        if self.map[:len(token)] != token:
            self.map.close()
            raise ValueError(f"share: {SHM_DIR}/{name} does not hold the client's token "
                             "(is the client on another machine, through a tunnel?)")
        self.size = size

    def place(self, frames):
        """Writes frames at offset 0 when they fit; the reply's "frames_shared" entry, or None
        (the frames then go inline)."""
        if frames.nbytes > self.size:
            return None
        np.ndarray(frames.shape, np.uint8, buffer=self.map)[...] = frames
        return {"offset": 0, "shape": list(frames.shape)}

    def close(self):
        self.map.close()


def share(request, current):
    """A "share" request: the new segment (the old one closed) and the reply."""
    try:
        shared = SharedFrames(request.get("name"), request.get("size"), request.get("token"))
    except (OSError, ValueError) as e:
        return current, {"shared": False, "why": str(e)}
    if current:
        current.close()
    return shared, {"shared": True}


def _check_frames(frames, count, metadata, what):
    frames = np.asarray(frames)
    height, width = metadata["frame"]["height"], metadata["frame"]["width"]
    if frames.dtype != np.uint8 or frames.ndim != 4 or frames.shape[1:] != (height, width, 3):
        raise ValueError(f"{what} returned {frames.dtype} {frames.shape}; expected uint8 "
                         f"[N, {height}, {width}, 3]")
    if count is not None and frames.shape[0] != count:
        raise ValueError(f"{what} returned {frames.shape[0]} frames for {count} actions")
    return np.ascontiguousarray(frames)


class WorldServer:
    """Serves worlds made by `factory` (one per connection: a simulator's episodes never mix;
    a learned model may return one shared instance, whose calls the server then serializes)."""

    def __init__(self, factory, host="127.0.0.1", port=8765, shared=False):
        self.factory = factory
        self.host = host
        self.port = port
        self.shared = shared
        self._locks = {}
        # Every call of a world runs on one thread of its own (the world's thread): an OpenGL
        # or EGL context (MuJoCo's renderer in dm_control, gym-aloha) is current on the thread
        # that made it only. A shared world has one for the whole server.
        self._shared_thread = (concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="kosmos-world") if shared else None)

    async def _handler(self, websocket, path=None):
        thread = self._shared_thread or concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="kosmos-world")
        try:
            await self._serve_connection(websocket, thread)
        finally:
            if thread is not self._shared_thread:
                thread.shutdown(wait=False)

    async def _serve_connection(self, websocket, thread):
        loop = asyncio.get_running_loop()
        try:  # a world that cannot be made says why, as any failing call does
            world = await loop.run_in_executor(thread, self.factory)
            metadata = dict(await loop.run_in_executor(thread, world.metadata))
        except Exception:
            log.exception("the world could not be made")
            await send_error(websocket)
            return

        def outcome():
            proprio = _optional(world, "proprio")
            return {"success": _optional(world, "success"), "reward": _optional(world, "reward"),
                    "done": _optional(world, "done"), "state": _optional(world, "state"),
                    "proprio": (None if proprio is None
                                else np.asarray(proprio, dtype=np.float64).ravel())}
        lock = self._locks.setdefault(id(world), asyncio.Lock())
        metadata.setdefault("kosmos_world", 1)
        metadata.setdefault("provenance", {})
        metadata["reported_by_server"] = True
        metadata["frames_shared_memory"] = os.path.isdir(SHM_DIR)
        packer = msgpack_numpy.Packer()
        await websocket.send(packer.pack(metadata))
        shared = None  # the client's segment, once it offered one

        def framed(frames, count, what):
            """Checked frames as the reply carries them: in the client's segment when they fit
            (written here, on the world's thread, before the reply goes), else inline."""
            frames = _check_frames(frames, count, metadata, what)
            place = shared.place(frames) if shared else None
            return {"frames_shared": place} if place else {"frames": frames}

        def answer(call, count, what):
            """On the world's thread: the call (timed alone), its frames, its outcome."""
            start = time.perf_counter()
            frames = call()
            world_ms = (time.perf_counter() - start) * 1000
            return framed(frames, count, what), outcome(), world_ms

        try:
            while True:
                try:
                    message = await websocket.recv()
                except Exception:  # the client went: nothing to answer
                    return
                try:
                    request = msgpack_numpy.unpackb(message)
                    kind = request.get("type") if isinstance(request, dict) else None
                    start = time.perf_counter()
                    if kind == "health":
                        reply = {"ok": True}
                    elif kind == "share":
                        shared, reply = share(request, shared)
                    elif kind == "reset":
                        call = functools.partial(world.reset, request.get("frame"),
                                                 request.get("instruction", ""),
                                                 int(request.get("seed", 0)),
                                                 request.get("start_state") or {})
                        async with lock:  # the call and its outcome in one hop to the thread
                            reply, after, world_ms = await loop.run_in_executor(
                                thread, answer, call, None, "reset")
                    elif kind == "step":
                        actions = np.asarray(request["actions"], dtype=np.float64)
                        if actions.ndim != 2:
                            raise ValueError(f"actions of shape {actions.shape}; expected [T, D]")
                        async with lock:
                            reply, after, world_ms = await loop.run_in_executor(
                                thread, answer, functools.partial(world.step, actions),
                                actions.shape[0], "step")
                    else:
                        raise ValueError(f"unknown request type {kind!r}")
                    timing = {"call_ms": (time.perf_counter() - start) * 1000}
                    if kind in ("reset", "step"):
                        reply.update(after)
                        timing["world_ms"] = world_ms
                    reply["server_timing"] = timing
                    await websocket.send(packer.pack(reply))
                except Exception:
                    await send_error(websocket)
                    return
        finally:
            if shared:
                shared.close()

    async def serve(self, ready=None):
        await listen(self._handler, self.host, self.port, "kosmos_world", ready=ready)


def run(factory, host, port, shared=False):
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    try:
        asyncio.run(WorldServer(factory, host, port, shared).serve())
    except KeyboardInterrupt:
        pass
