# Issue 33: the CF oracle. Writes Zarr v2 stores covering every CF decoding rule Floe implements
# (zarr 2.13 for exact attributes, xarray's to_zarr for what xarray itself writes), then prints
# what `xr.open_zarr(...).load()` decodes, value by value, as JSON on stdout:
#   {"versions": {...}, "stores": {store: {variable: {"dtype", "kind", ...}}}}
# kind "float"/"int": "hex" holds the little-endian bytes; "time": "dates" holds
# [year, month, day, hour, minute, second, microsecond, nanosecond] or null (NaT); "timedelta":
# "ns" holds nanoseconds (null for NaT); "error": xarray could not decode the variable (the store is
# then opened one variable at a time). Usage: cf-xarray-peer.py OUT_DIR
import json
import subprocess
import sys
import warnings

import cftime
import numpy as np
import xarray as xr
import zarr

warnings.simplefilter("ignore")
out = sys.argv[1]


def put(group, name, values, dtype, attrs, fill=None, chunks=None):
    data = np.asarray(values, dtype=dtype)
    arr = group.create_dataset(name, data=data, chunks=chunks or (max(1, (data.shape[0] + 1) // 2),), fill_value=fill, dtype=dtype)
    arr.attrs.update({"_ARRAY_DIMENSIONS": ["d_" + name], **attrs})


def packed_store(path):
    g = zarr.open_group(path, mode="w")
    i16 = [-32767, -32766, -1000, -1, 0, 1, 12345, 32767, -999, -998]
    put(g, "i16_scale_fill", i16, "i2", {"scale_factor": 0.01, "_FillValue": -32767})
    put(g, "i16_scale_offset", i16, "i2", {"scale_factor": 0.01, "add_offset": 273.15})
    put(g, "i16_scale_offset_fill", i16, "i2", {"scale_factor": 0.01, "add_offset": 273.15, "_FillValue": -32767})
    put(g, "i16_fill_missing_list", i16, "i2", {"_FillValue": -32767, "missing_value": [-999, -998]})
    put(g, "i16_missing_scalar", i16, "i2", {"missing_value": -1000, "scale_factor": 2.5})
    put(g, "i16_valid_range", i16, "i2", {"valid_range": [-1000, 1000], "scale_factor": 0.5})
    put(g, "i16_valid_min_max", i16, "i2", {"valid_min": 0, "valid_max": 100})
    i8 = [-128, -127, -1, 0, 1, 127, -2, 100]
    put(g, "i8_unsigned_fill_scale", i8, "i1", {"_Unsigned": "true", "_FillValue": -1, "scale_factor": 0.5})
    put(g, "i8_unsigned_plain", i8, "i1", {"_Unsigned": "true"})
    put(g, "i8_signed_offset", i8, "i1", {"scale_factor": 0.25, "add_offset": -10.0})
    put(g, "u8_scale", [0, 1, 127, 128, 254, 255], "u1", {"scale_factor": 0.1})
    put(g, "u8_fill", [0, 1, 127, 128, 254, 255], "u1", {"_FillValue": 255})
    put(g, "u16_unsigned_false", [0, 1, 32767, 32768, 65535], "u2", {"_Unsigned": "false", "_FillValue": 1})
    put(g, "i32_fill_scale", [-2147483647, -5, 0, 7, 2147483647], "i4", {"_FillValue": -2147483647, "scale_factor": 1e-3, "add_offset": 5.0})
    put(g, "i64_scale", [-(2**62), -1, 0, 2**53 + 1, 2**62], "i8", {"scale_factor": 0.5})
    f32 = [9.96921e36, 1.5, -0.0, 3.4e38, -1e-30, 7.0]
    put(g, "f32_fill_missing", f32, "f4", {"_FillValue": 9.96921e36, "missing_value": 7.0})
    put(g, "f32_scale_offset", f32[1:], "f4", {"scale_factor": 0.1, "add_offset": 1000.0})
    put(g, "f64_fill", [1e300, -2.5, 1e-300, -9999.0], "f8", {"_FillValue": -9999.0})
    put(g, "flags", [0, 1, 2, 4, 5, 1], "u1", {"flag_values": [0, 1, 2, 4], "flag_meanings": "good suspect bad missing_data"})
    put(g, "flag_masks", [0, 1, 2, 3, 4, 9], "u1", {"flag_masks": [1, 2, 12, 12], "flag_values": [1, 2, 4, 8], "flag_meanings": "a b c d"})
    put(g, "duration_hours", [0.0, 1.5, -36.25, 1e4], "f8", {"units": "hours"})
    # zarr's own fill_value with no _FillValue attribute (xarray v2 takes it as _FillValue):
    put(g, "zarr_fill_nonzero", [-9, 0, 3], "i2", {}, fill=-9)
    put(g, "zarr_fill_zero", [0, 0, 3], "i2", {}, fill=0)
    put(g, "zarr_fill_zero_packed", [0, 2, 3], "i2", {"scale_factor": 0.5}, fill=0)
    put(g, "f32_zarr_fill_nan", [float("nan"), 1.0], "f4", {}, fill=float("nan"))
    put(g, "multi_chunk_2d", np.arange(-60, 60, dtype="i2").reshape(12, 10), "i2", {"scale_factor": 0.125, "_FillValue": -60}, chunks=(5, 3))
    g["multi_chunk_2d"].attrs["_ARRAY_DIMENSIONS"] = ["d_y", "d_x"]


CALENDARS = ["standard", "gregorian", "proleptic_gregorian", "julian", "noleap", "365_day", "all_leap", "366_day", "360_day"]


def time_store(path):
    g = zarr.open_group(path, mode="w")
    for cal in CALENDARS:
        c = cal
        put(g, f"switch_{c}", [0, 3, 4, 5, 10, 14, 15, 400], "i4", {"units": "days since 1582-10-01", "calendar": cal})
        put(g, f"leap_{c}", [0, 24, 48, 72, 96], "i4", {"units": "hours since 1900-02-28", "calendar": cal})
        put(g, f"leap2000_{c}", [0, 1, 2, 3, 366, 1461], "i2", {"units": "days since 2000-02-27", "calendar": cal})
        put(g, f"month_end_{c}", [0, 1, 2, 29, 30, 31, 58, 59, 60, 364, 365], "i2", {"units": "days since 2001-01-30 00:00:00", "calendar": cal})
        put(g, f"frac_neg_{c}", [-36.5, -0.25, 0.125, 0.0, 1e5 + 0.5, -1e6], "f8", {"units": "hours since 1850-01-01 12:00", "calendar": cal})
        put(g, f"early_{c}", [0, 1, 59, 365, -1, -366, 730000], "i4", {"units": "days since 0001-01-01", "calendar": cal})
        put(g, f"masked_{c}", [0, -9999, 31, -9999, 59], "i4", {"units": "days since 1970-01-01", "calendar": cal, "_FillValue": -9999})
        put(g, f"packed_{c}", [0, 1, -32767, 2, 4], "i2", {"units": "days since 1999-12-30 18:00", "calendar": cal, "scale_factor": 0.25, "_FillValue": -32767})
    # xarray 2023.01 decodes a time's first and last values to pick a type; a missing one there
    # fails the variable on every cftime calendar (kept to record it: Floe decodes it).
    put(g, "masked_first_noleap", [-9999, 0, 1], "i4", {"units": "days since 2000-01-01", "calendar": "noleap", "_FillValue": -9999})
    put(g, "months_360_day", [0, 1, 11, 12, 13, -1, 25], "i4", {"units": "months since 2000-01-01", "calendar": "360_day"})
    put(g, "int64_micros", [0, 2**53 + 1, -(2**53) - 3, 2**60], "i8", {"units": "microseconds since 1900-01-01", "calendar": "standard"})
    put(g, "int64_seconds_noleap", [0, 2**40 + 1, -(2**35)], "i8", {"units": "seconds since 1900-01-01 00:00:00", "calendar": "noleap"})
    # Time bounds: no units of their own; CF 7.1 (and xarray) take the parent's units and calendar.
    for cal in ["noleap", "standard"]:
        put(g, f"tb_{cal}", [0.5, 1.5, 59.5], "f8", {"units": "days since 2000-01-01", "calendar": cal, "bounds": f"tb_{cal}_bnds"})
        put(g, f"tb_{cal}_bnds", [[0, 1], [1, 2], [59, 60]], "f8", {}, chunks=(2, 2))
        g[f"tb_{cal}_bnds"].attrs["_ARRAY_DIMENSIONS"] = [f"d_tb_{cal}", "nv"]
    put(g, "zone_offset", [0, 6], "i4", {"units": "hours since 2000-01-01 06:00:00 +06:00"})
    put(g, "no_calendar", [0, 365, 366], "i4", {"units": "days since 1999-01-01"})
    put(g, "minutes_t", [0, 90, -1441], "i4", {"units": "minutes since 2000-01-01T00:00:00Z", "calendar": "standard"})


def xarray_store(path):
    # What xarray writes: _FillValue goes to .zarray's fill_value, not to .zattrs.
    temp = np.array([[271.5, np.nan, 300.25], [250.0, 260.125, np.nan]])
    times = xr.cftime_range("2000-02-27", periods=4, freq="D", calendar="360_day")
    noleap = xr.cftime_range("1999-12-30", periods=4, freq="1D", calendar="noleap")
    ds = xr.Dataset(
        {
            "temp": (("y", "x"), temp, {"units": "K"}),
            "t360": ("t", np.arange(4.0), {}),
            "noleap_time": ("n", noleap),
            "u8": ("k", np.array([0.0, 1.0, np.nan, 25.5])),
        },
        coords={"time360": ("t", times)},
    )
    encoding = {
        "temp": {"dtype": "int16", "scale_factor": 0.125, "add_offset": 250.0, "_FillValue": -32767},
        "noleap_time": {"units": "hours since 1999-12-01", "calendar": "noleap", "dtype": "int32"},
        "time360": {"units": "days since 2000-01-01", "calendar": "360_day"},
        "u8": {"dtype": "uint8", "scale_factor": 0.1, "_FillValue": 255},
    }
    ds.to_zarr(path, mode="w", encoding=encoding, consolidated=False)


def cftime_dates(arr):
    # xarray 2023.01 cannot decode missing times on cftime calendars; cftime (what it would call)
    # decodes the present values: mask, unpack, then num2date.
    a = arr.attrs
    raw = arr[...].astype("f8")
    missing = np.isin(arr[...], np.concatenate([np.ravel(a.get("_FillValue", [])), np.ravel(a.get("missing_value", []))]))
    values = raw * a.get("scale_factor", 1.0) + a.get("add_offset", 0.0)
    dates = cftime.num2date(values[~missing], a["units"], a.get("calendar", "standard"))
    it = iter(dates)
    out = [None if m else next(it) for m in missing]
    return {"dates": [None if d is None else [d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond, 0] for d in out]}


def describe(var):
    data = var.values
    if data.dtype.kind == "M":
        flat = data.reshape(-1)
        dates = []
        for v in flat:
            if np.isnat(v):
                dates.append(None)
                continue
            import pandas as pd
            t = pd.Timestamp(v)
            dates.append([t.year, t.month, t.day, t.hour, t.minute, t.second, t.microsecond, t.nanosecond])
        return {"dtype": str(data.dtype), "kind": "time", "dates": dates}
    if data.dtype.kind == "O":
        dates = [None if d is None else [d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond, 0] for d in data.reshape(-1)]
        calendars = sorted({d.calendar for d in data.reshape(-1) if d is not None})
        return {"dtype": "object", "kind": "time", "dates": dates, "calendars": calendars}
    if data.dtype.kind == "m":
        return {"dtype": str(data.dtype), "kind": "timedelta", "ns": [None if np.isnat(v) else int(v.astype("int64")) for v in data.reshape(-1)]}
    kind = "float" if data.dtype.kind == "f" else "int"
    return {"dtype": data.dtype.name, "kind": kind, "hex": np.ascontiguousarray(data).astype(data.dtype.newbyteorder("<")).tobytes().hex(), "shape": list(data.shape)}


stores = {"packed": packed_store, "times": time_store, "xarray": xarray_store}
result = {"stores": {}}
for name, write in stores.items():
    path = f"{out}/{name}.zarr"
    write(path)
    try:
        ds = xr.open_zarr(path, consolidated=False).load()
        result["stores"][name] = {str(k): describe(v) for k, v in {**ds.data_vars, **ds.coords}.items()}
    except (ValueError, TypeError):
        # One variable xarray cannot decode fails the whole store: open them one at a time.
        names = list(zarr.open_group(path, mode="r").array_keys())
        result["stores"][name] = {}
        for k in names:
            try:
                ds = xr.open_zarr(path, consolidated=False, drop_variables=[n for n in names if n != k]).load()
                result["stores"][name][k] = describe(ds[k])
            except (ValueError, TypeError) as err:
                result["stores"][name][k] = {"error": str(err).splitlines()[0], **cftime_dates(zarr.open_array(f"{path}/{k}", mode="r"))}
result["versions"] = {
    "python3-xarray": subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "python3-xarray"], capture_output=True, text=True).stdout or xr.__version__,
    "cftime": cftime.__version__,
    "zarr": zarr.__version__,
    "numpy": np.__version__,
}
json.dump(result, sys.stdout)
