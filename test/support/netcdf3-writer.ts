// A NetCDF-3 header writer for tests: builds the bytes of a header model (valid or deliberately
// not), so the parser's round trips and its refusals can be checked without a peer. Written from
// the format specification like the parser, but separately (big-endian, 4-byte padding; counts 8
// bytes wide in CDF-5, offsets 8 bytes wide in 64-bit offset and CDF-5).
import type { Netcdf3Type, Netcdf3Version } from '../../src/format/netcdf3/header.ts';

export interface HeaderModel {
  version: Netcdf3Version;
  numRecords: number | null;
  dimensions: { name: string; length: number }[];
  attributes: AttrModel[];
  variables: { name: string; dimensionIds: number[]; attributes: AttrModel[]; type: Netcdf3Type; vsize: number; begin: number }[];
}

export interface AttrModel {
  name: string;
  type: Netcdf3Type;
  /** Text for NC_CHAR; numbers (bigint for the 64-bit types) otherwise. */
  value: string | (number | bigint)[];
}

const SIZES: Record<Netcdf3Type, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 4, 6: 8, 7: 1, 8: 2, 9: 4, 10: 8, 11: 8 };

class Out {
  parts: number[] = [];
  u32(v: number): void {
    this.parts.push((v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255);
  }
  u64(v: number | bigint): void {
    const b = BigInt(v);
    this.u32(Number((b >> 32n) & 0xffffffffn));
    this.u32(Number(b & 0xffffffffn));
  }
  bytes(b: Uint8Array): void {
    for (const x of b) this.parts.push(x);
    while (this.parts.length % 4 !== 0) this.parts.push(0);
  }
}

export function encodeHeader(model: HeaderModel): Uint8Array {
  const out = new Out();
  const wide = model.version === 5;
  const count = (n: number) => (wide ? out.u64(n) : out.u32(n));
  const offset = (n: number) => (model.version === 1 ? out.u32(n) : out.u64(n));
  const name = (s: string) => {
    const b = new TextEncoder().encode(s);
    count(b.length);
    out.bytes(b);
  };
  const attrs = (list: AttrModel[]) => {
    out.u32(list.length === 0 ? 0 : 0x0c);
    count(list.length);
    for (const a of list) {
      name(a.name);
      out.u32(a.type);
      if (typeof a.value === 'string') {
        const b = new TextEncoder().encode(a.value);
        count(b.length);
        out.bytes(b);
        continue;
      }
      count(a.value.length);
      const size = SIZES[a.type];
      const buf = new DataView(new ArrayBuffer(a.value.length * size));
      a.value.forEach((v, i) => {
        switch (a.type) {
          case 1: buf.setInt8(i, Number(v)); break;
          case 2: case 7: buf.setUint8(i, Number(v)); break;
          case 3: buf.setInt16(i * 2, Number(v)); break;
          case 8: buf.setUint16(i * 2, Number(v)); break;
          case 4: buf.setInt32(i * 4, Number(v)); break;
          case 9: buf.setUint32(i * 4, Number(v)); break;
          case 5: buf.setFloat32(i * 4, Number(v)); break;
          case 6: buf.setFloat64(i * 8, Number(v)); break;
          case 10: buf.setBigInt64(i * 8, BigInt(v)); break;
          case 11: buf.setBigUint64(i * 8, BigInt(v)); break;
        }
      });
      out.bytes(new Uint8Array(buf.buffer));
    }
  };
  out.parts.push(0x43, 0x44, 0x46, model.version);
  if (model.numRecords === null) {
    for (let i = 0; i < (wide ? 8 : 4); i++) out.parts.push(0xff);
  } else count(model.numRecords);
  out.u32(model.dimensions.length === 0 ? 0 : 0x0a);
  count(model.dimensions.length);
  for (const d of model.dimensions) {
    name(d.name);
    count(d.length);
  }
  attrs(model.attributes);
  out.u32(model.variables.length === 0 ? 0 : 0x0b);
  count(model.variables.length);
  for (const v of model.variables) {
    name(v.name);
    count(v.dimensionIds.length);
    for (const id of v.dimensionIds) count(id);
    attrs(v.attributes);
    out.u32(v.type);
    count(v.vsize);
    offset(v.begin);
  }
  return new Uint8Array(out.parts);
}
