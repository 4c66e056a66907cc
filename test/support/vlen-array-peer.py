"""zarr-python 2 / numcodecs VLenArray as a peer for Floe's vlen-array tests (run by
test/cross/zarr-python-vlen-array.test.ts with /usr/bin/python3):
  vlen-array-peer.py write <store dir> <cases.json>   writes every case with the values below
  vlen-array-peer.py read <store dir> <cases.json>    prints {name: {"values": [...], "bytes": [...]}}

A case is {name, dtype (the element dtype), shape, chunks, compressor}. Element j holds j % 5 items
(so every fifth element is empty), item k of element j computed from j and k by the formulas in
`element`. "values" lists each element's items as plain JSON numbers the way Floe holds them:
integers up to 32 bits and floats as numbers (NaN/Infinity/-Infinity as strings; float16 and
float32 widened exactly), 64-bit integers and datetime/timedelta counts as decimal strings,
complex as interleaved [re, im, re, im, ...], bool as 0/1, S<n>/V<n> as the item bytes. "bytes"
is each element's stored bytes in hex (array.tobytes(), the dtype's own byte order).
"""
import json
import math
import sys

import numcodecs
import numpy as np
import zarr


def element(dtype, j):
    k = np.arange(j % 5)
    kind = dtype.kind
    if kind == "b":
        return ((j + k) % 2 == 0).astype(dtype)
    if kind in "iu":
        big = dtype.itemsize == 8
        base = (j * 7919 - k * 104729 - 20) * (2**40 if big else 1) + (k if big else 0)
        return np.array(base, dtype="<i8").astype(dtype)  # wraps into the width, as NumPy casts
    if kind == "f":
        out = ((j - 2.5 * k) / 4).astype(dtype)
        if len(out) == 4:
            out[1], out[3] = np.nan, -np.inf
        return out
    if kind == "c":
        return ((j - k) * 0.5 + 1j * (k - j * 0.25)).astype(dtype)
    if kind in "mM":
        return np.array(j * 1000 - k * 77 - 3, dtype="<i8").view(dtype.newbyteorder("<")).astype(dtype)
    if kind in "SV":
        raw = bytes((j * 31 + i * 7) % 256 for i in range(len(k) * dtype.itemsize))
        return np.frombuffer(raw, dtype=dtype).copy()
    if kind == "U":
        return np.array(["ab"[: (j + i) % 3] for i in k], dtype=dtype)
    raise ValueError(f"no values for {dtype}")


def plain_number(v):
    if isinstance(v, float) and not math.isfinite(v):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    return v


def plain(a):
    kind = a.dtype.kind
    if kind == "b":
        return [int(x) for x in a]
    if kind in "iu":
        return [str(int(x)) if a.dtype.itemsize == 8 else int(x) for x in a]
    if kind == "f":
        return [plain_number(float(x)) for x in a]
    if kind == "c":
        return [plain_number(float(p)) for x in a for p in (x.real, x.imag)]
    if kind in "mM":
        return [str(int(x)) for x in a.astype(a.dtype.newbyteorder("<")).view("<i8")]
    if kind in "SV":
        return list(a.tobytes())
    return None  # U<n>: no plain number form


def open_case(root, spec, mode):
    path = f"{root}/{spec['name']}"
    if mode == "r":
        return zarr.open(path, mode="r")
    return zarr.create(
        store=zarr.DirectoryStore(path),
        overwrite=True,
        shape=tuple(spec["shape"]),
        chunks=tuple(spec["chunks"]),
        dtype=object,
        object_codec=numcodecs.VLenArray(spec["dtype"]),
        fill_value=None,  # the default 0 would fill edge chunks with ints, which VLenArray cannot encode
        compressor=None if spec["compressor"] is None else numcodecs.get_codec(spec["compressor"]),
    )


def write(root, cases):
    for spec in cases:
        z = open_case(root, spec, "w")
        dtype = np.dtype(spec["dtype"])
        n = int(np.prod(z.shape))
        data = np.empty(n, dtype=object)
        for j in range(n):  # one by one: NumPy would stack equal-length arrays into 2-d
            data[j] = element(dtype, j)
        z[...] = data.reshape(z.shape)


def read(root, cases):
    out = {}
    for spec in cases:
        flat = open_case(root, spec, "r")[...].ravel()
        out[spec["name"]] = {"values": [plain(x) for x in flat], "bytes": [x.tobytes().hex() for x in flat]}
    return out


def main(argv):
    root = argv[2]
    with open(argv[3]) as f:
        cases = json.load(f)
    if argv[1] == "write":
        write(root, cases)
    elif argv[1] == "read":
        print(json.dumps(read(root, cases)))
    else:
        raise SystemExit(f"unknown command {argv[1]}")


if __name__ == "__main__":
    main(sys.argv)
