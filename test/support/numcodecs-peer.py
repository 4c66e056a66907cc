"""numcodecs (Debian's python3-numcodecs 0.11) as a peer for Floe's numcodecs codec tests.

Run by test/support/python-numcodecs.ts with /usr/bin/python3:
  numcodecs-peer.py versions
  numcodecs-peer.py encode <cases.json>             {name: {input, encoded, decoded}} (JSON)
  numcodecs-peer.py decode <cases.json> <streams>   {name: decoded} for streams {name: hex} (JSON)

A case is {name, config, dtype, shape, data}: config a numcodecs configuration, dtype a NumPy
typestr ("|O" for object codecs, whose elements are strings unless the codec is vlen-array),
data one of the generators below. Arrays print as {"hex": raw bytes} in their dtype and byte
order, object arrays as {"strings": [...]}, or {"binary": [hex, ...]} for vlen-array; encoded
and decoded streams as hex. Inputs are deterministic, so both sides see the same values.
"""
import json
import sys

import numcodecs
import numpy as np


def generate(case):
    dtype = np.dtype(case["dtype"])
    shape = tuple(case["shape"])
    n = int(np.prod(shape))
    kind = case["data"]
    i = np.arange(n)
    rng = np.random.RandomState(len(case["name"]))
    if dtype.kind == "O":
        if case["config"]["id"] == "vlen-array":
            inner = np.dtype(case["config"]["dtype"])
            out = np.empty(n, dtype=object)
            for j in range(n):
                out[j] = (np.arange(j % 5) * 3 - j).astype(inner)
            return out.reshape(shape)
        pool = ["a", "bb", "é", "日本", "🧊", "", 'q"\\\n\t\x01', "zz"]
        out = np.empty(n, dtype=object)
        out[:] = [pool[j % len(pool)] + ("x" * (j % 3)) for j in range(n)]
        return out.reshape(shape)
    if dtype.kind == "U":
        pool = ["a", "bb", "é", "日", "", "zz"]
        return np.array([pool[j % len(pool)] for j in range(n)], dtype=dtype).reshape(shape)
    if dtype.kind == "b":
        return (rng.randint(0, 2, n) > 0).reshape(shape)
    if kind == "ramp":
        values = i * 7 - 50
    elif kind == "walk":
        values = np.cumsum(rng.randint(-1000, 1000, n))
    elif kind == "noise":
        values = rng.randint(-(2**31), 2**31 - 1, n, dtype=np.int64)
    elif kind == "floats":
        values = rng.normal(1000.0, 25.0, n)
    elif kind == "special":
        values = rng.normal(0.0, 1e3, n)
        values[: min(n, 6)] = [np.nan, np.inf, -np.inf, -0.0, 0.5, 2.5][: min(n, 6)]
    elif kind == "bytes":
        return np.frombuffer(rng.bytes(n * dtype.itemsize), dtype=dtype).reshape(shape).copy()
    else:
        raise SystemExit(f"unknown data {kind}")
    with np.errstate(all="ignore"):
        return values.astype(dtype).reshape(shape)


def show(array):
    a = np.asarray(array)
    if a.dtype.kind == "O":
        flat = a.ravel().tolist()
        if all(isinstance(x, str) for x in flat):
            return {"strings": flat}
        return {"binary": [np.asarray(x).tobytes().hex() for x in flat]}
    if a.dtype.kind == "U":
        return {"strings": a.ravel().tolist()}
    return {"hex": a.tobytes().hex()}


def as_bytes(encoded):
    if isinstance(encoded, np.ndarray):
        return encoded.tobytes()
    return bytes(memoryview(encoded))


def decoded_like(codec, case, stream):
    out = codec.decode(stream)
    dtype = np.dtype(case["dtype"])
    if dtype.kind == "O":
        return show(np.asarray(out, dtype=object).reshape(-1))
    return show(np.frombuffer(as_bytes(out), dtype=dtype) if not isinstance(out, np.ndarray) else out.view(dtype).reshape(-1))


def encode(cases):
    result = {}
    for case in cases:
        codec = numcodecs.get_codec(dict(case["config"]))
        data = generate(case)
        with np.errstate(all="ignore"):
            encoded = as_bytes(codec.encode(data))
            result[case["name"]] = {"input": show(data), "encoded": encoded.hex(), "decoded": decoded_like(codec, case, encoded)}
    return result


def decode(cases, streams):
    result = {}
    for case in cases:
        codec = numcodecs.get_codec(dict(case["config"]))
        stream = bytes.fromhex(streams[case["name"]])
        with np.errstate(all="ignore"):
            result[case["name"]] = decoded_like(codec, case, stream)
    return result


def main(argv):
    if argv[1] == "versions":
        print(json.dumps({"numcodecs": numcodecs.__version__, "numpy": np.__version__}))
        return
    with open(argv[2]) as f:
        cases = json.load(f)
    if argv[1] == "encode":
        print(json.dumps(encode(cases)))
    elif argv[1] == "decode":
        with open(argv[3]) as f:
            print(json.dumps(decode(cases, json.load(f))))
    else:
        raise SystemExit(f"unknown command {argv[1]}")


if __name__ == "__main__":
    main(sys.argv)
