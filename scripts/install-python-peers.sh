#!/usr/bin/env bash
# Installs the Python peers the cross-tests run under /usr/bin/python3 (test/support/python-*.ts
# run that interpreter, never a pyenv `python3` earlier on PATH), all from Debian 12:
# - the Zarr v2 cross-tests: python3-zarr (zarr-python 2.13), python3-numcodecs (0.11) and
#   python3-msgpack (numcodecs' msgpack2 codec, only recommended);
# - the CF tests (issue 33): python3-xarray (2023.01) and python3-cftime (1.6);
# - the virtual-dataset fixtures (issue 35): python3-netcdf4 (netCDF-C 4.9), python3-h5py
#   (HDF5 1.10.8) and the HDF5 filter plugins (LZ4, bzip2, Blosc).
# Idempotent and quiet: does nothing when everything is already there.
set -euo pipefail

PACKAGES=(python3-zarr python3-numcodecs python3-msgpack python3-xarray python3-cftime python3-netcdf4 python3-h5py hdf5-filter-plugin hdf5-filter-plugin-blosc-serial)

if /usr/bin/python3 -c 'import zarr, numcodecs, msgpack, xarray, cftime, netCDF4, h5py' >/dev/null 2>&1 \
  && dpkg-query -W hdf5-filter-plugin hdf5-filter-plugin-blosc-serial >/dev/null 2>&1; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null
echo "install-python-peers: $(/usr/bin/python3 -c 'import zarr, numcodecs, netCDF4, h5py; print("zarr", zarr.__version__, "numcodecs", numcodecs.__version__, "netCDF4", netCDF4.__version__, "h5py", h5py.__version__)'), $(dpkg-query -W -f '${Package} ${Version}' python3-xarray)"
