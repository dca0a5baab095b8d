"""openpi's msgpack-numpy encoding (openpi-client's msgpack_numpy), byte for byte: a numpy array
is a map with the bin keys b"__ndarray__" (True), b"data" (raw C-order bytes), b"dtype" (the
dtype's str, "|u1", "<f8" ...) and b"shape"; a numpy scalar is {b"__npgeneric__": True,
b"data": value, b"dtype": str}. Object and void dtypes are refused (they do not travel as bytes).
"""

import functools

import msgpack
import numpy as np


def pack_array(obj):
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind in ("V", "O", "c"):
            raise ValueError(f"unsupported dtype {obj.dtype}")
        obj = np.ascontiguousarray(obj)
        return {b"__ndarray__": True, b"data": obj.tobytes(), b"dtype": obj.dtype.str,
                b"shape": obj.shape}
    if isinstance(obj, np.generic):
        return {b"__npgeneric__": True, b"data": obj.item(), b"dtype": obj.dtype.str}
    return obj


def unpack_array(obj):
    if b"__ndarray__" in obj:
        return np.ndarray(buffer=obj[b"data"], dtype=np.dtype(obj[b"dtype"]),
                          shape=tuple(obj[b"shape"]))
    if b"__npgeneric__" in obj:
        return np.dtype(obj[b"dtype"]).type(obj[b"data"])
    return obj


Packer = functools.partial(msgpack.Packer, default=pack_array)
packb = functools.partial(msgpack.packb, default=pack_array)
unpackb = functools.partial(msgpack.unpackb, object_hook=unpack_array)
