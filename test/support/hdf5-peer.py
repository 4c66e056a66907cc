# Peer for the HDF5 / NetCDF-4 scanner tests (test/txn/hdf5-scan.test.ts): h5py (HDF5 1.10.8,
# libver 'earliest' and 'latest', so every chunk index appears), the Debian filter plugins, and
# netCDF4 (netCDF-C 4.9) write files; for each dataset it prints what h5py reads back (raw, as
# little-endian C-order hex) and every chunk's get_chunk_info (offset, byte offset, size, mask).
import json
import os
import sys

import numpy as np


def le_hex(a):
    a = np.ascontiguousarray(a)
    if a.dtype.kind == 'S':
        a = a.view('u1')
    if a.dtype.kind in 'iuf' and a.dtype.itemsize > 1:
        a = a.astype(a.dtype.newbyteorder('<'))
    return a.tobytes().hex()


def dump_h5(path):
    import h5py
    out = {}
    with h5py.File(path, 'r') as f:
        base = f.userblock_size  # get_chunk_info's byte offsets are relative to the base address

        def visit(name, obj):
            if not isinstance(obj, h5py.Dataset):
                return
            info = {'dtype': obj.dtype.str, 'shape': list(obj.shape), 'hex': le_hex(obj[()]) if obj.dtype.kind in 'iufSb' else None,
                    'layout': obj.id.get_create_plist().get_layout(), 'chunks': None, 'filters': list(obj._filters.keys())}
            if obj.chunks is not None:
                n = obj.id.get_num_chunks()
                cs = []
                for i in range(n):
                    c = obj.id.get_chunk_info(i)
                    cs.append([[o // k for o, k in zip(c.chunk_offset, obj.chunks)], c.byte_offset + base, c.size, c.filter_mask])
                info['chunks'] = cs
                info['chunk_shape'] = list(obj.chunks)
            out[name] = info
        f.visititems(visit)
    return out


def write_h5(out):
    import h5py
    rng = np.random.default_rng(35)
    files = {}
    for libver in ['earliest', 'latest']:
        path = os.path.join(out, libver + '.h5')
        with h5py.File(path, 'w', libver=libver) as f:
            f.attrs['title'] = np.bytes_('hdf5 ' + libver)
            f.attrs['vstr'] = 'a variable-length string'
            f.attrs['ints'] = np.array([1, -2, 3], dtype='>i4')
            f.attrs['pi'] = np.float64(3.25)
            a = f.create_dataset('chunked', (20, 30), dtype='<f4', chunks=(7, 8), fillvalue=-1.5)
            v = rng.standard_normal((20, 30)).astype('<f4')
            a[:14, :] = v[:14, :]
            a.attrs['units'] = np.bytes_('K')
            f.create_dataset('big', data=rng.integers(-30000, 30000, (9, 4)).astype('>i2'), chunks=(4, 4))
            f.create_dataset('gz', data=rng.integers(0, 1000, (50, 40)).astype('<i8'), chunks=(16, 16), compression='gzip', compression_opts=4, shuffle=True)
            f.create_dataset('fletch', data=np.arange(300, dtype='<f8').reshape(30, 10), chunks=(8, 10), fletcher32=True, compression='gzip')
            f.create_dataset('contig', data=np.arange(60, dtype='<i4').reshape(12, 5) * 3 - 7)
            f.create_dataset('empty_contig', (5,), dtype='<u2', fillvalue=7)
            f.create_dataset('compact', data=np.arange(6, dtype='<u4'), **({'dcpl': None} if False else {}))
            f.create_dataset('scalar', data=np.float32(2.5))
            f.create_dataset('text', data=np.array([b'abc', b'de', b'fghij'], dtype='S5'))
            f.create_dataset('single', data=np.arange(24, dtype='<i2').reshape(4, 6), chunks=(4, 6), compression='gzip')
            f.create_dataset('fixed', data=rng.standard_normal((40, 30)).astype('<f4'), chunks=(5, 5))
            f.create_dataset('fixed_paged', data=np.arange(2000, dtype='<u1').reshape(40, 50) % 251, chunks=(1, 1))
            f.create_dataset('fixed_filtered', data=np.arange(1000, dtype='<i4').reshape(100, 10), chunks=(10, 5), compression='gzip', shuffle=True)
            e = f.create_dataset('ext', shape=(0, 6), maxshape=(None, 6), dtype='<f8', chunks=(3, 4), compression='gzip')
            e.resize((1000, 6))
            e[:] = rng.standard_normal((1000, 6))
            e2 = f.create_dataset('ext_col', shape=(5, 0), maxshape=(5, None), dtype='<i2', chunks=(5, 2))
            e2.resize((5, 41))
            e2[:] = np.arange(205, dtype='<i2').reshape(5, 41)
            b2 = f.create_dataset('bt2', shape=(10, 10), maxshape=(None, None), dtype='<u2', chunks=(3, 4))
            b2[:] = np.arange(100, dtype='<u2').reshape(10, 10)
            b2f = f.create_dataset('bt2f', shape=(10, 10), maxshape=(None, None), dtype='<f4', chunks=(3, 4), compression='gzip', shuffle=True)
            b2f[:] = np.arange(100, dtype='<f4').reshape(10, 10) / 3
            g = f.create_group('grp/sub')
            for i in range(12):
                g.create_dataset('v%02d' % i, data=np.full((3,), i, dtype='<i1'))
                g.attrs['a%02d' % i] = np.int16(i)
            many = f.create_group('many')  # a multi-node group B-tree (earliest); indirect heap blocks and a deeper name index (latest)
            for i in range(150):
                many.create_dataset('d%03d_with_a_longer_name_to_fill_the_heap' % i, data=np.int16(i))
                many.attrs['attribute_%03d_with_a_longer_name' % i] = np.arange(i % 7 + 1, dtype='<i8')
            f.create_dataset('bz2', data=np.arange(500, dtype='<i4'), chunks=(100,), compression=307)
            f.create_dataset('blosc', data=np.arange(500, dtype='<f4'), chunks=(100,), compression=32001, compression_opts=(0, 0, 0, 0, 5, 1, 1))
            f.create_dataset('lz4', data=np.tile(np.arange(10, dtype='<i4'), 50), chunks=(100,), compression=32004)
            f.create_dataset('lzf', data=np.arange(500, dtype='<i4') // 7, chunks=(100,), compression='lzf')  # runs: LZF really compresses them
            m = f.create_dataset('masked', shape=(4,), dtype='<i4', chunks=(2,), compression='gzip')
            m[:] = [1, 2, 3, 4]
            m.id.write_direct_chunk((2,), np.array([5, 6], dtype='<i4').tobytes(), filter_mask=1)
        files[libver + '.h5'] = path
    # Implicit chunk index: early allocation, no filters, fixed size (libver latest).
    path = os.path.join(out, 'implicit.h5')
    with h5py.File(path, 'w', libver='latest') as f:
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((4, 5))
        dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
        space = h5py.h5s.create_simple((10, 12))
        h5py.h5d.create(f.id, b'implicit', h5py.h5t.NATIVE_INT32, space, dcpl=dcpl)
        f['implicit'][:] = np.arange(120, dtype='<i4').reshape(10, 12)
        # Compact layout: the data inside the object header.
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_layout(h5py.h5d.COMPACT)
        h5py.h5d.create(f.id, b'compact', h5py.h5t.STD_I16BE, h5py.h5s.create_simple((3, 4)), dcpl=dcpl)
        f['compact'][:] = np.arange(12, dtype='>i2').reshape(3, 4) - 5
    files['implicit.h5'] = path
    # A user block before the superblock (found at 1024): addresses are relative to it.
    path = os.path.join(out, 'userblock.h5')
    with h5py.File(path, 'w', userblock_size=1024, libver='latest') as f:
        f.create_dataset('x', data=np.arange(20, dtype='<i4'), chunks=(5,), compression='gzip')
    files['userblock.h5'] = path
    return {name: dump_h5(p) for name, p in files.items()}


def write_nc4(out):
    import netCDF4
    rng = np.random.default_rng(37)
    path = os.path.join(out, 'nc4.nc')
    d = netCDF4.Dataset(path, 'w', format='NETCDF4')
    d.title = 'netcdf4 file'
    d.createDimension('time', None)
    d.createDimension('lat', 6)
    d.createDimension('lon', 8)
    d.createDimension('nv', 2)
    t = d.createVariable('time', 'f8', ('time',))
    t.units = 'days since 2000-01-01'
    lat = d.createVariable('lat', 'f4', ('lat',))
    lat[:] = np.linspace(-50, 50, 6)
    temp = d.createVariable('temp', 'f4', ('time', 'lat', 'lon'), zlib=True, shuffle=True, fill_value=np.float32(-999), chunksizes=(2, 3, 4))
    temp.long_name = 'temperature'
    t[:9] = np.arange(9) * 0.5
    temp[:9] = rng.standard_normal((9, 6, 8)).astype('f4')
    cnt = d.createVariable('count', 'i2', ('lat', 'lon'), fletcher32=True, zlib=True)
    cnt[:] = rng.integers(-100, 100, (6, 8))
    bnds = d.createVariable('bounds', 'f8', ('lat', 'nv'))
    bnds[:] = rng.standard_normal((6, 2))
    for i in range(9):
        d.createVariable('extra%d' % i, 'i4', ('lat',))[:] = np.arange(6) + i
    d.createDimension('nchar', 4)
    code = d.createVariable('code', 'S1', ('lat', 'nchar'))
    code[:] = np.array([list(b'abcd'), list(b'efgh'), list(b'ijkl'), list(b'mnop'), list(b'qrst'), list(b'uvwx')], dtype='S1')
    d.createVariable('nofill', 'f4', ('lon',))[:5] = np.arange(5, dtype='f4')  # the rest: netCDF's default fill
    names = d.createVariable('names', str, ('nv',))
    names[0] = 'a string'
    kind = d.createEnumType(np.uint8, 'kind_t', {'land': 0, 'sea': 1})
    d.createVariable('kind', kind, ('lat',))[:] = np.array([0, 1, 1, 0, 1, 0], dtype='u1')
    g = d.createGroup('sub')
    g.createDimension('x', 3)
    g.createVariable('xv', 'u1', ('x',))[:] = [1, 2, 3]
    g.createVariable('yv', 'i8', ('lat', 'x'))[:] = np.arange(18).reshape(6, 3) - 9  # the parent's dimension
    d.close()
    classic = os.path.join(out, 'classic4.nc')
    d = netCDF4.Dataset(classic, 'w', format='NETCDF4_CLASSIC')
    d.createDimension('time', None)
    d.createDimension('y', 4)
    v = d.createVariable('v', 'f8', ('time', 'y'), zlib=True, complevel=2, fill_value=1e20)
    v[:3] = np.arange(12).reshape(3, 4) * 0.5
    d.createVariable('y', 'i4', ('y',))[:] = [10, 20, 30, 40]
    d.close()
    return {'nc4.nc': dump_nc(path), 'classic4.nc': dump_nc(classic)}


def dump_nc(path):
    import netCDF4
    d = netCDF4.Dataset(path)
    out = {}

    def walk(grp, prefix):
        for name, v in grp.variables.items():
            v.set_auto_maskandscale(False)
            if v.dtype is str:
                out[prefix + name] = {'skipped': True}
                continue
            v.set_auto_chartostring(False)
            a = np.asarray(v[...])
            out[prefix + name] = {'dtype': a.dtype.str, 'shape': list(a.shape), 'dims': list(v.dimensions), 'hex': le_hex(a),
                                  'attrs': sorted(v.ncattrs())}
        for gname, g in grp.groups.items():
            walk(g, prefix + gname + '/')
    walk(d, '')
    d.close()
    return out


def write_hostile(out):
    """Small files the hostile tests damage: their structures' offsets as h5py reports them."""
    import h5py
    res = {}
    for libver in ['earliest', 'latest']:
        path = os.path.join(out, 'hostile-' + libver + '.h5')
        with h5py.File(path, 'w', libver=libver) as f:
            if libver == 'latest':  # attributes kept compact, added later: the header grows by continuation blocks
                gcpl = h5py.h5p.create(h5py.h5p.GROUP_CREATE)
                gcpl.set_attr_phase_change(1000, 1000)
                h5py.h5g.create(f.id, b'cont', gcpl=gcpl)
            d = f.create_dataset('data', data=np.arange(64, dtype='<i4').reshape(8, 8), chunks=(4, 4), compression='gzip')
            for i in range(30):  # attributes added after creation: continuation blocks
                d.attrs['attribute_%02d' % i] = np.arange(i + 1, dtype='<f8')
            g = f.create_group('a')
            g.create_dataset('small', data=np.arange(5, dtype='<u2'))
            huge = f.create_dataset('huge', shape=(98765, 87654), maxshape=(None, None), dtype='<f8', chunks=(100, 100))
            huge.attrs['n'] = 1
            if libver == 'latest':
                for i in range(30):
                    f['cont'].attrs['attribute_%02d' % i] = np.arange(i + 1, dtype='<f8')
        with h5py.File(path, 'r') as f:
            res[libver] = {'path': path, 'chunk_offsets': [f['data'].id.get_chunk_info(i).byte_offset for i in range(4)],
                           'continued': '/data' if libver == 'earliest' else '/cont',
                           'continued_header': h5py.h5o.get_info(f['data' if libver == 'earliest' else 'cont'].id).addr}
    # A group containing itself.
    path = os.path.join(out, 'cycle.h5')
    with h5py.File(path, 'w') as f:
        g = f.create_group('a')
        g.create_dataset('x', data=np.arange(3))
        g['loop'] = g
    res['cycle'] = path
    # A group whose name is not a valid Zarr node name.
    path = os.path.join(out, 'names.h5')
    with h5py.File(path, 'w') as f:
        f.create_group('__reserved').create_dataset('x', data=np.arange(3))
        f.create_dataset('ok', data=np.arange(3))
    res['names'] = path
    return res


if __name__ == '__main__':
    cmd = sys.argv[1]
    if cmd == 'h5':
        print(json.dumps(write_h5(sys.argv[2])))
    elif cmd == 'nc4':
        print(json.dumps(write_nc4(sys.argv[2])))
    elif cmd == 'hostile':
        print(json.dumps(write_hostile(sys.argv[2])))
