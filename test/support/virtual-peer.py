# Peer for the virtual-dataset tests (test/txn/virtualize-peers.test.ts): Debian's python3-netcdf4
# writes NetCDF-3 files (classic, 64-bit offset, CDF-5) and h5py writes an uncompressed HDF5 file
# with kerchunk version-1 references emitted from its chunk info; each prints what it wrote and
# the values netCDF4 / h5py read back (raw, unmasked, as little-endian C-order hex).
import base64
import json
import os
import sys

import numpy as np


def le_hex(a):
    a = np.ascontiguousarray(a)
    if a.dtype.kind == 'S':
        a = a.view('u1')
    return a.astype(a.dtype.newbyteorder('<')).tobytes().hex()


def dump_netcdf(path):
    import netCDF4
    d = netCDF4.Dataset(path)
    out = {'format': d.data_model, 'vars': {}, 'attrs': {k: jsonable(d.getncattr(k)) for k in d.ncattrs()}}
    for name, v in d.variables.items():
        v.set_auto_maskandscale(False)
        v.set_auto_chartostring(False)
        a = v[...]
        a = np.asarray(a)
        out['vars'][name] = {'dtype': a.dtype.str, 'shape': list(a.shape), 'dims': list(v.dimensions), 'hex': le_hex(a),
                             'attrs': {k: jsonable(v.getncattr(k)) for k in v.ncattrs()}}
    d.close()
    return out


def jsonable(x):
    if isinstance(x, (bytes, str)):
        return x if isinstance(x, str) else x.decode()
    a = np.asarray(x)
    if a.dtype.kind == 'f':
        vals = [float(v) if np.isfinite(v) else ('NaN' if np.isnan(v) else ('Infinity' if v > 0 else '-Infinity')) for v in a.ravel()]
    else:
        vals = [int(v) for v in a.ravel()]
    return vals[0] if a.size == 1 else vals


def write_netcdf3(out):
    import netCDF4
    rng = np.random.default_rng(35)
    files = {}
    for fmt, name in [('NETCDF3_CLASSIC', 'classic.nc'), ('NETCDF3_64BIT_OFFSET', 'offset64.nc'), ('NETCDF3_64BIT_DATA', 'cdf5.nc')]:
        path = os.path.join(out, name)
        d = netCDF4.Dataset(path, 'w', format=fmt)
        d.title = 'virtual ' + name
        d.version = np.int32(3)
        d.scales = np.array([0.5, 1.5, -2.25])
        d.createDimension('time', None)
        d.createDimension('lat', 5)
        d.createDimension('lon', 7)
        d.createDimension('nchar', 4)
        t = d.createVariable('time', 'f8', ('time',))
        t.units = 'days since 2000-01-01'
        temp = d.createVariable('temp', 'f4', ('time', 'lat', 'lon'), fill_value=np.float32(-999.0))
        temp.long_name = 'temperature'
        count = d.createVariable('count', 'i2', ('time', 'lat'))
        flags = d.createVariable('flags', 'i1', ('time',))
        lat = d.createVariable('lat', 'f4', ('lat',))
        lon = d.createVariable('lon', 'f8', ('lon',))
        mask = d.createVariable('mask', 'i4', ('lat', 'lon'), fill_value=np.int32(-1))
        code = d.createVariable('code', 'S1', ('nchar',))
        scalar = d.createVariable('scalar', 'f8', ())
        nanfill = d.createVariable('nanfill', 'f8', ('lat',), fill_value=np.nan)
        nanfill[:3] = [1.0, np.nan, 3.0]  # the last two are netCDF's fill, NaN
        lat[:] = np.linspace(-60, 60, 5)
        lon[:] = np.linspace(0, 300, 7)
        m = rng.integers(0, 100, (5, 7)).astype('i4')
        m[0, 0] = -1
        mask[:] = m
        code[:] = np.array([b'a', b'b', b'c', b'd'])
        scalar.assignValue(42.5)
        n = 11
        t[:n] = np.arange(n) * 1.5
        tv = rng.standard_normal((n, 5, 7)).astype('f4')
        tv[2, 1, 1] = -999.0
        temp[:n] = tv
        count[:n - 2] = rng.integers(-300, 300, (n - 2, 5)).astype('i2')  # last two records: default fill
        flags[:n] = rng.integers(-100, 100, n).astype('i1')
        if fmt == 'NETCDF3_64BIT_DATA':
            for vname, dt in [('u16', 'u2'), ('u32', 'u4'), ('i64', 'i8'), ('u64', 'u8'), ('ub', 'u1')]:
                v = d.createVariable(vname, dt, ('time', 'lon'))
                info = np.iinfo(dt)
                v[:n] = rng.integers(info.min // 2 if info.min < 0 else 0, info.max // 2, (n, 7), dtype=dt)
            big = d.createVariable('big64', 'i8', ('lat',))
            big[:] = np.array([2**62, -2**62, 1, -1, 2**53 + 1], dtype='i8')
        d.close()
        files[name] = path
    # No records yet: record variables have shape [0, ...].
    path = os.path.join(out, 'empty.nc')
    d = netCDF4.Dataset(path, 'w', format='NETCDF3_CLASSIC')
    d.createDimension('time', None)
    d.createDimension('x', 3)
    d.createVariable('rec', 'f4', ('time', 'x'))
    fixed = d.createVariable('fixed', 'i2', ('x',))
    fixed[:] = [1, 2, 3]
    d.close()
    files['empty.nc'] = path
    # One record variable of shorts: records are not padded (6 bytes apart).
    path = os.path.join(out, 'onerec.nc')
    d = netCDF4.Dataset(path, 'w', format='NETCDF3_CLASSIC')
    d.createDimension('time', None)
    d.createDimension('x', 3)
    v = d.createVariable('only', 'i2', ('time', 'x'))
    v[:13] = np.arange(39, dtype='i2').reshape(13, 3) - 20
    d.close()
    files['onerec.nc'] = path
    # Many records of two record variables (byte rows padded to 4 bytes).
    path = os.path.join(out, 'many.nc')
    d = netCDF4.Dataset(path, 'w', format='NETCDF3_64BIT_OFFSET')
    d.createDimension('time', None)
    d.createDimension('x', 3)
    d.createDimension('y', 7)
    a = d.createVariable('a', 'i1', ('time', 'x'))
    b = d.createVariable('b', 'f4', ('time', 'y'))
    a[:500] = (np.arange(1500) % 200 - 100).astype('i1').reshape(500, 3)
    b[:500] = np.arange(3500, dtype='f4').reshape(500, 7) / 7
    wide = d.createVariable('wide', 'f8', ('x', 'y'))
    wide[:] = np.arange(21).reshape(3, 7) * 0.25
    d.close()
    files['many.nc'] = path
    return {name: dump_netcdf(p) for name, p in files.items()}


def write_kerchunk(out):
    import h5py
    rng = np.random.default_rng(36)
    h5 = os.path.join(out, 'data.h5')
    values = {}
    with h5py.File(h5, 'w', libver='earliest') as f:
        chunked = f.create_dataset('chunked', (20, 30), dtype='<f4', chunks=(7, 8))
        v = rng.standard_normal((20, 30)).astype('<f4')
        chunked[:14, :] = v[:14, :]  # the last chunk row is never written: no chunk, reads as 0
        v[14:, :] = 0
        values['chunked'] = v
        big = f.create_dataset('grp/bigendian', (9, 4), dtype='>i2', chunks=(4, 4))
        w = rng.integers(-30000, 30000, (9, 4)).astype('>i2')
        big[:] = w
        values['grp/bigendian'] = w
        contig = f.create_dataset('contig', (12, 5), dtype='<i4')
        c = np.arange(60, dtype='<i4').reshape(12, 5) * 3 - 7
        contig[:] = c
        values['contig'] = c
    refs = {'.zgroup': json.dumps({'zarr_format': 2}), '.zattrs': json.dumps({'title': 'from h5py'}),
            'grp/.zgroup': json.dumps({'zarr_format': 2}), 'grp/.zattrs': json.dumps({'kind': 'subgroup'})}
    templates = {'u': 'data.h5'}
    gen = []
    with h5py.File(h5, 'r') as f:
        for name in ['chunked', 'grp/bigendian']:
            ds = f[name]
            refs[name + '/.zarray'] = json.dumps({'zarr_format': 2, 'shape': list(ds.shape), 'chunks': list(ds.chunks), 'dtype': ds.dtype.str,
                                                  'compressor': None, 'filters': None, 'fill_value': 0, 'order': 'C'})
            refs[name + '/.zattrs'] = json.dumps({'_ARRAY_DIMENSIONS': ['y', 'x'] if name == 'chunked' else ['a', 'b']})
            for i in range(ds.id.get_num_chunks()):
                info = ds.id.get_chunk_info(i)
                key = '.'.join(str(o // c) for o, c in zip(info.chunk_offset, ds.chunks))
                url = '{{u}}' if name == 'chunked' else os.path.abspath(h5)
                refs[name + '/' + key] = [url, info.byte_offset, info.size]
        ds = f['contig']
        base = ds.id.get_offset()
        refs['contig/.zarray'] = json.dumps({'zarr_format': 2, 'shape': [12, 5], 'chunks': [3, 5], 'dtype': '<i4', 'compressor': None,
                                             'filters': None, 'fill_value': None, 'order': 'C', 'dimension_separator': '/'})
        gen.append({'key': 'contig/{{i}}/0', 'url': '{{u}}', 'offset': '{{' + str(base) + ' + i * 60}}', 'length': '60',
                    'dimensions': {'i': {'start': 0, 'stop': 4, 'step': 1}}})
    small = np.array([7, 8, 9, 250], dtype='u1')
    refs['small/.zarray'] = json.dumps({'zarr_format': 2, 'shape': [4], 'chunks': [4], 'dtype': '|u1', 'compressor': None, 'filters': None,
                                        'fill_value': 0, 'order': 'C'})
    refs['small/0'] = 'base64:' + base64.b64encode(small.tobytes()).decode()
    values['small'] = small
    text = np.frombuffer(b'Hi!!', dtype='u1')
    refs['text/.zarray'] = json.dumps({'zarr_format': 2, 'shape': [4], 'chunks': [4], 'dtype': '|u1', 'compressor': None, 'filters': None,
                                       'fill_value': 0, 'order': 'C'})
    refs['text/0'] = 'Hi!!'
    values['text'] = text
    # A compressor whose v3 form Floe writes is fine; a dtype needing re-encoding is skipped.
    refs['unicode/.zarray'] = json.dumps({'zarr_format': 2, 'shape': [2], 'chunks': [2], 'dtype': '<U3', 'compressor': None, 'filters': None,
                                          'fill_value': '', 'order': 'C'})
    refs['unicode/0'] = 'base64:' + base64.b64encode(np.array(['ab', 'c'], dtype='<U3').tobytes()).decode()
    # A reference to a file that does not exist: that variable is skipped with the reason.
    refs['gone/.zarray'] = refs['small/.zarray']
    refs['gone/0'] = ['missing.h5', 0, 4]
    doc = {'version': 1, 'templates': templates, 'gen': gen, 'refs': refs}
    path = os.path.join(out, 'refs.json')
    with open(path, 'w') as fh:
        json.dump(doc, fh)
    # The same values written by netCDF4 into a NetCDF-3 file, for the two paths to agree.
    import netCDF4
    d = netCDF4.Dataset(os.path.join(out, 'same.nc'), 'w', format='NETCDF3_CLASSIC')
    d.createDimension('y', 20)
    d.createDimension('x', 30)
    d.createVariable('chunked', 'f4', ('y', 'x'), fill_value=np.float32(0))[:] = values['chunked']
    d.close()
    return {'refs': path, 'h5': h5, 'values': {k: {'dtype': np.asarray(v).dtype.str, 'shape': list(np.shape(v)), 'hex': le_hex(v)} for k, v in values.items()}}


def write_concat(out, count, fmt):
    # `count` files of one archive: a record dimension time (3 to 5 records each, hours since
    # 2000-01-01 running on across files), fixed lat/lon, temp(time, lat, lon) float32, grid(lat,
    # lon) the same in every file, and in NetCDF-3 level(time) int16; MFDataset reads them joined.
    # NETCDF4_CLASSIC (HDF5): netCDF-C chunks a 1-D record variable by 512 or more, far longer than
    # a file's records (so level, data that cannot tile, is left out), and temp one record deep.
    import netCDF4
    rng = np.random.default_rng(3500 + count)
    with_level = not fmt.startswith('NETCDF4')
    names = []
    t0 = 0
    for i in range(count):
        path = os.path.join(out, 'part%02d.nc' % i)
        d = netCDF4.Dataset(path, 'w', format=fmt)
        d.title = 'archive part %d' % i
        d.createDimension('time', None)
        d.createDimension('lat', 4)
        d.createDimension('lon', 6)
        n = 3 + i % 3
        t = d.createVariable('time', 'f8', ('time',))
        t.units = 'hours since 2000-01-01 00:00:00'
        t[:] = np.arange(t0, t0 + n, dtype='f8') * 6
        t0 += n
        d.createVariable('lat', 'f4', ('lat',))[:] = np.linspace(60, 30, 4)
        d.createVariable('lon', 'f4', ('lon',))[:] = np.linspace(0, 25, 6)
        temp = d.createVariable('temp', 'f4', ('time', 'lat', 'lon'), fill_value=np.float32(-999))
        temp[:] = rng.normal(280, 5, (n, 4, 6)).astype('f4')
        if with_level:
            d.createVariable('level', 'i2', ('time',))[:] = rng.integers(0, 1000, n).astype('i2')
        d.createVariable('grid', 'i4', ('lat', 'lon'))[:] = np.arange(24, dtype='i4').reshape(4, 6)
        d.close()
        names.append(path)
    variables = ['time', 'lat', 'lon', 'temp'] + (['level'] if with_level else []) + ['grid']
    return {'files': names, 'vars': joined(names, variables)}


def joined(names, variables):
    import netCDF4
    m = netCDF4.MFDataset(names, aggdim='time')
    vals = {}
    for name in variables:
        v = m.variables[name]
        v.set_auto_maskandscale(False)
        a = np.asarray(v[...])
        vals[name] = {'dtype': a.dtype.str, 'shape': list(a.shape), 'hex': le_hex(a)}
    m.close()
    return vals


if __name__ == '__main__':
    cmd = sys.argv[1]
    if cmd == 'versions':
        import h5py
        import netCDF4
        print(json.dumps({'netCDF4': netCDF4.__version__, 'netcdf-c': netCDF4.__netcdf4libversion__, 'h5py': h5py.__version__, 'hdf5': h5py.version.hdf5_version}))
    elif cmd == 'netcdf3':
        print(json.dumps(write_netcdf3(sys.argv[2])))
    elif cmd == 'kerchunk':
        print(json.dumps(write_kerchunk(sys.argv[2])))
    elif cmd == 'concat':
        print(json.dumps(write_concat(sys.argv[2], int(sys.argv[3]), sys.argv[4])))
    elif cmd == 'dump':
        print(json.dumps(dump_netcdf(sys.argv[2])))
    else:
        raise SystemExit('unknown command ' + cmd)
