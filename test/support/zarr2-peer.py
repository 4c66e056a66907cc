"""zarr-python 2 (Debian's python3-zarr 2.13 with numcodecs 0.11) as a peer for Floe's Zarr v2 tests.

Run by test/support/python-zarr.ts with /usr/bin/python3:
  zarr2-peer.py versions
  zarr2-peer.py write <store dir> <cases.json>   writes every case with deterministic values
  zarr2-peer.py read <store dir> <cases.json>    prints {name: values} for every case (JSON)
  zarr2-peer.py consolidate <store dir>          zarr.consolidate_metadata
  zarr2-peer.py read-consolidated <store dir>    opens with zarr.open_consolidated, prints {path: values}

A case is {name, dtype, shape, chunks, order, separator, compressor, filters, fill, partial}: dtype
a NumPy typestr or descr ("|O" with an object codec, or categorize, first in filters), compressor and filters
numcodecs configurations, fill the fill value in zarr's JSON form (as .zarray holds it), partial
true to leave the last chunk row unwritten so that it reads as the fill value.

Values print in one canonical form both sides can produce: {"hex": ...} for fixed-size elements
(little-endian, C order; float16 as float32, bool as uint8, datetimes as int64, records and bytes
as stored), {"strings": [...]} for U<n> and string object arrays, {"binary": [hex, ...]} for vlen-bytes
and vlen-array (each element's bytes).
"""
import base64
import json
import sys

import numcodecs
import numpy as np
import zarr


def dtype_of(spec):
    d = spec["dtype"]
    if isinstance(d, list):
        return np.dtype([tuple(f[:2]) + ((tuple(f[2]),) if len(f) > 2 else ()) for f in d])
    return np.dtype(d)


def fill_of(spec, dtype):
    v = spec["fill"]
    if v is None or dtype.kind == "O":
        return v
    if dtype.kind in "SV":
        raw = base64.standard_b64decode(v)
        return raw.ljust(dtype.itemsize, b"\0") if dtype.kind == "V" else raw
    if dtype.kind in "mM" and v == "NaT":
        return np.datetime64("NaT")
    if dtype.kind in "mM":
        return np.array(v, dtype="<i8").view(dtype.newbyteorder("<"))[()]
    if dtype.kind == "c":
        return complex(float(v[0]), float(v[1]))
    if dtype.kind == "f":
        return float(v)
    return v


def scalar_values(dtype, n):
    i = np.arange(n)
    k = dtype.kind
    if k == "b":
        return i % 3 == 0
    if k in "iu":
        return (i * 7919 - 50).astype("<i8").astype(dtype)
    if k == "f":
        out = (i * 1.5 - 7).astype(dtype)
        if n > 3:
            out[1] = np.nan
            out[2] = np.inf
        return out
    if k == "c":
        return (i * 0.5 - 1j * i).astype(dtype)
    if k in "mM":
        return (i * 1000 - 5).astype("<i8").view(dtype.newbyteorder("<")).astype(dtype)
    if k == "S":
        return np.array([bytes((j * 3 + c) % 256 for c in range(j % (dtype.itemsize + 1))) for j in i], dtype=dtype)
    if k == "V":
        return np.frombuffer(bytes((j * 5) % 256 for j in range(n * dtype.itemsize)), dtype=dtype).copy()
    if k == "U":
        pool = ["a", "é", "日", "🧊", "z"]
        return np.array(["".join(pool[(j + c) % 5] for c in range(j % (dtype.itemsize // 4 + 1))) for j in i], dtype=dtype)
    raise ValueError(f"no values for {dtype}")


def values_for(spec, dtype, shape):
    n = int(np.prod(shape))
    if dtype.kind == "O":
        first = spec["filters"][0]
        codec = first["id"]
        if codec == "categorize":
            labels = first["labels"]
            flat = [labels[j % len(labels)] if j % 4 else "unlabelled" for j in range(n)]
        elif codec in ("vlen-utf8", "json2", "msgpack2"):
            flat = [("s%dé" % j) * (j % 3) for j in range(n)]
        elif codec == "vlen-array":
            flat = [(np.arange(j % 4) * 3 - j).astype(first["dtype"]) for j in range(n)]
        else:
            flat = [bytes([j % 256]) * (j % 4) for j in range(n)]
        out = np.empty(n, dtype=object)
        out[:] = flat
        return out.reshape(shape)
    if dtype.fields:
        out = np.zeros(n, dtype=dtype)
        for name in dtype.names:
            sub = dtype.fields[name][0]
            base, subshape = (sub.base, sub.shape)
            count = int(np.prod(subshape)) if subshape else 1
            out[name] = scalar_values(base, n * count).reshape((n,) + subshape)
        return out.reshape(shape)
    return scalar_values(dtype, n).reshape(shape)


def open_case(root, spec, mode):
    dtype = dtype_of(spec)
    if mode == "r":
        return zarr.open(f"{root}/{spec['name']}", mode="r")
    filters = spec["filters"]
    object_codec = None
    if dtype.kind == "O" and filters[0]["id"] != "categorize":  # categorize needs no object codec
        object_codec = numcodecs.get_codec(filters[0])
        filters = filters[1:] or None
    # zarr.create, not zarr.open(mode="w"): open casts a record fill value before normalising it,
    # which fails on numpy 1.24 ("Cannot compare structured or void to non-void arrays").
    return zarr.create(
        store=zarr.DirectoryStore(f"{root}/{spec['name']}", dimension_separator=spec["separator"]),
        overwrite=True,
        shape=tuple(spec["shape"]),
        chunks=tuple(spec["chunks"]),
        dtype=dtype,
        order=spec["order"],
        compressor=None if spec["compressor"] is None else numcodecs.get_codec(spec["compressor"]),
        filters=None if filters is None else [numcodecs.get_codec(f) for f in filters],
        fill_value=fill_of(spec, dtype),
        object_codec=object_codec,
    )


def write(root, cases):
    for spec in cases:
        z = open_case(root, spec, "w")
        data = values_for(spec, z.dtype, z.shape)
        if spec["partial"] and len(z.shape) > 0 and z.shape[0] > z.chunks[0]:
            rows = (z.shape[0] - 1) // z.chunks[0] * z.chunks[0]
            z[:rows] = data[:rows]
        else:
            z[...] = data


def canonical(a):
    a = np.asarray(a)
    d = a.dtype
    if d.kind == "O":
        flat = a.ravel().tolist()
        if all(isinstance(x, str) for x in flat):
            return {"strings": flat}
        return {"binary": [bytes(x).hex() for x in flat]}
    if d.kind == "U":
        return {"strings": a.ravel().tolist()}
    if d.fields or d.kind in "SV":
        return {"hex": a.tobytes().hex()}
    if d.kind in "mM":
        return {"hex": a.astype(d.newbyteorder("<")).view("<i8").tobytes().hex()}
    if d.kind == "b":
        return {"hex": a.astype("u1").tobytes().hex()}
    if d.kind == "f" and d.itemsize == 2:
        return {"hex": a.astype("<f4").tobytes().hex()}
    return {"hex": a.astype(d.newbyteorder("<")).tobytes().hex()}


def read(root, cases):
    return {spec["name"]: canonical(open_case(root, spec, "r")[...]) for spec in cases}


def read_consolidated(root):
    g = zarr.open_consolidated(zarr.DirectoryStore(root), mode="r")
    out = {"attrs": dict(g.attrs), "arrays": {}, "groups": {}}

    def walk(group, prefix):
        for name in group.group_keys():
            out["groups"][prefix + name] = dict(group[name].attrs)
            walk(group[name], prefix + name + "/")
        for name in group.array_keys():
            try:
                out["arrays"][prefix + name] = canonical(group[name][...])
            except Exception as err:  # e.g. a codec option numcodecs 0.11 predates
                out["arrays"][prefix + name] = {"error": f"{type(err).__name__}: {err}"}

    walk(g, "")
    return out


def main(argv):
    cmd = argv[1]
    if cmd == "versions":
        print(json.dumps({"zarr": zarr.__version__, "numcodecs": numcodecs.__version__, "numpy": np.__version__}))
        return
    root = argv[2]
    if cmd == "consolidate":
        zarr.group(store=zarr.DirectoryStore(root))  # the root group, unless there is one
        zarr.consolidate_metadata(zarr.DirectoryStore(root))
        return
    if cmd == "read-consolidated":
        print(json.dumps(read_consolidated(root)))
        return
    with open(argv[3]) as f:
        cases = json.load(f)
    if cmd == "write":
        write(root, cases)
    elif cmd == "read":
        print(json.dumps(read(root, cases)))
    else:
        raise SystemExit(f"unknown command {cmd}")


if __name__ == "__main__":
    main(sys.argv)
