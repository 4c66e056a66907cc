# Issue 33: the oracle for what `floe cat/query/show` and `floe serve` show of CF stores.
# xarray's own to_zarr writes a small CF dataset (int16 packed temperature with a fill value, float32
# in both, on a
# noleap time axis with bounds, a flags variable, coordinates, cell_methods, grid_mapping) as
# Zarr v2; the script prints what `xr.open_zarr(...).load()` decodes, as JSON on stdout:
#   {"versions": {...}, "variables": {name: {"dtype", "shape", "values" | "dates", "stored"}}}
# floats are the decoded values' little-endian bytes as hex (bit-exact comparison), dates are
# cftime's isoformat() on the variable's calendar (null where missing), "stored" the raw values.
# Usage: cf-cli-peer.py OUT_DIR
import json
import subprocess
import sys
import warnings

import cftime
import numpy as np
import xarray as xr
import zarr

warnings.simplefilter("ignore")
out = sys.argv[1] + "/cf.zarr"

nt, ny, nx = 4, 3, 5
# noleap: 2001-02-28, then 2001-03-01 (no Feb 29), a day missing later on.
days = np.array([58.0, 59.0, 60.5, 425.25])
time = xr.DataArray(cftime.num2date(days, "days since 2001-01-01", calendar="noleap"), dims="time")
bounds = cftime.num2date(np.stack([days - 0.5, days + 0.5], axis=1), "days since 2001-01-01", calendar="noleap")
temp = -20.0 + np.arange(nt * ny * nx, dtype="f8").reshape(nt, ny, nx) * 1.37
temp[1, 1, 2] = np.nan
temp[3, 0, 0] = np.nan
ds = xr.Dataset(
    {
        "temperature": (("time", "lat", "lon"), temp, {"units": "degC", "long_name": "air temperature", "cell_methods": "time: mean (interval: 1 day)", "grid_mapping": "crs", "coordinates": "lat lon"}),
        "quality": (("time",), np.array([0, 1, 2, 5], dtype="u1"), {"flag_values": np.array([0, 1, 2, 4], dtype="u1"), "flag_meanings": "good suspect bad missing"}),
        "time_bnds": (("time", "nv"), bounds),
        "crs": ((), np.int32(0), {"grid_mapping_name": "latitude_longitude"}),
        "count": (("time",), np.array([3, -2, 7, 123456789012], dtype="i8"), {"units": "1"}),
    },
    coords={"time": time, "lat": ("lat", [10.0, 20.0, 30.0], {"units": "degrees_north"}), "lon": ("lon", [0.0, 1.5, 3.0, 4.5, 6.0], {"units": "degrees_east"})},
)
ds.time.attrs["bounds"] = "time_bnds"
encoding = {
    "temperature": {"dtype": "int16", "scale_factor": 0.01, "_FillValue": -32767, "chunks": (2, 3, 5)},
    "time": {"units": "days since 2001-01-01", "calendar": "noleap", "dtype": "float64"},
    "time_bnds": {"units": "days since 2001-01-01", "calendar": "noleap", "dtype": "float64"},
}
ds.to_zarr(out, mode="w", encoding=encoding, consolidated=True)

loaded = xr.open_zarr(out).load()
raw = zarr.open_group(out, mode="r")
variables = {}
for name in ["temperature", "quality", "time", "lat", "lon", "time_bnds", "count"]:
    v = loaded[name]
    entry = {"dtype": str(v.dtype), "shape": list(v.shape), "stored": np.asarray(raw[name][...]).ravel().tolist()}
    if v.dtype == object or np.issubdtype(v.dtype, np.datetime64):
        entry["dates"] = [None if d is None else d.isoformat() for d in np.asarray(v.values).ravel()]
        entry["calendar"] = v.values.ravel()[0].calendar
    else:
        entry["hex"] = np.ascontiguousarray(v.values).astype(v.dtype.newbyteorder("<")).tobytes().hex()
    variables[name] = entry

version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "python3-xarray"], capture_output=True, text=True).stdout.strip()
print(json.dumps({"versions": {"python3-xarray": version or xr.__version__, "cftime": cftime.__version__, "zarr": zarr.__version__}, "variables": variables}))
