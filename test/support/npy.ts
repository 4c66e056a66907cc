// Minimal .npy reader for conformance fixtures: parses the header and returns the raw element
// bytes in the order numcodecs encoded them (`tobytes(order='A')`: C or F order as stored).
export interface NpyArray {
  descr: string;
  shape: number[];
  fortranOrder: boolean;
  /** Element bytes exactly as stored in the file (a view into it). */
  data: Uint8Array;
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

export function parseNpy(file: Uint8Array): NpyArray {
  if (!MAGIC.every((b, i) => file[i] === b)) throw new Error('not an .npy file (bad magic)');
  const major = file[6]!;
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const headerStart = major === 1 ? 10 : 12;
  const header = new TextDecoder('latin1').decode(file.subarray(headerStart, headerStart + headerLength));
  const descr = /'descr':\s*'([^']*)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr === undefined || fortran === undefined || shapeText === undefined) throw new Error(`unparsed npy header: ${header}`);
  const shape = shapeText.split(',').map((s) => s.trim()).filter((s) => s.length > 0).map(Number);
  return { descr, shape, fortranOrder: fortran === 'True', data: file.subarray(headerStart + headerLength) };
}
