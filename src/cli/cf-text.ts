// What the CLI says about an array's CF decoding (docs/cf.md): `floe show`'s "cf" lines and
// JSON, and the units and calendar beside `cat`'s and `query`'s values.
import { decodedDataType, type CfVariable } from '../format/cf/variable.ts';

/** A time variable's units and calendar, or a duration's or plain variable's units. */
export function cfUnits(cf: CfVariable, units?: unknown): { units?: string; calendar?: string } {
  if (cf.time) return { units: cf.time.units, calendar: cf.time.calendar };
  if (cf.duration) return { units: cf.duration.unit };
  return typeof units === 'string' ? { units } : {};
}

/** The decoding as JSON: decoded and stored type, packing, missing values, time, structured metadata, warnings. */
export function cfSummary(cf: CfVariable, storedDtype: string, units?: unknown): Record<string, unknown> {
  const v = cf.values;
  const m = cf.metadata;
  return {
    dtype: cf.time ? 'date' : decodedDataType(cf, storedDtype),
    storedDtype,
    ...cfUnits(cf, units),
    ...(v.scale !== undefined ? { scaleFactor: v.scale } : {}),
    ...(v.offset !== undefined ? { addOffset: v.offset } : {}),
    ...(v.missing.length > 0 ? { missingValues: v.missing } : {}),
    ...(cf.time ? { reference: cf.time.reference.toString() } : {}),
    ...(m.flags ? { flags: m.flags } : {}),
    ...(m.coordinates ? { coordinates: m.coordinates } : {}),
    ...(m.bounds ? { bounds: m.bounds } : {}),
    ...(m.gridMapping ? { gridMapping: m.gridMapping } : {}),
    ...(m.cellMethods ? { cellMethods: m.cellMethods } : {}),
    ...(m.validRange ? { validRange: m.validRange } : {}),
    ...(cf.warnings.length > 0 ? { warnings: cf.warnings } : {}),
  };
}

/** `floe show`'s lines for the decoding (nothing for an array CF leaves as it is). */
export function cfLines(cf: CfVariable, storedDtype: string, units?: unknown): string[] {
  const s = cfSummary(cf, storedDtype, units);
  const v = cf.values;
  const m = cf.metadata;
  const lines: string[] = [];
  const add = (label: string, text: string) => lines.push(`    ${label.padEnd(13)}${text}`);
  if (s.dtype !== storedDtype) add('decoded as', `${String(s.dtype)} (stored ${storedDtype})`);
  if (cf.time) add('time', `${cf.time.units}, calendar ${cf.time.calendar} (0 is ${cf.time.reference.toString()})`);
  else if (s.units !== undefined) add('units', String(s.units));
  if (v.scale !== undefined || v.offset !== undefined) add('unpacked', `stored * ${v.scale ?? 1} + ${v.offset ?? 0}`);
  if (v.missing.length > 0) add('missing', v.missing.join(', '));
  if (m.flags) {
    const codes = m.flags.values ?? m.flags.masks ?? [];
    add('flags', m.flags.meanings.map((meaning, i) => `${codes[i] ?? '?'} ${meaning}`).join(', '));
  }
  if (m.coordinates) add('coordinates', m.coordinates.join(' '));
  if (m.bounds) add('bounds', m.bounds);
  if (m.gridMapping) add('grid_mapping', m.gridMapping.map((g) => (g.coordinates.length > 0 ? `${g.name}: ${g.coordinates.join(' ')}` : g.name)).join('; '));
  if (m.cellMethods) add('cell_methods', m.cellMethods.map((c) => `${c.names.join(' ')}: ${c.method}${c.where ? ` where ${c.where}` : ''}${c.over ? ` over ${c.over}` : ''}${c.within ? ` within ${c.within}` : ''}${c.comment ? ` (${c.comment})` : ''}`).join('; '));
  if (m.validRange) add('valid range', `${m.validRange.min ?? '-inf'} .. ${m.validRange.max ?? 'inf'} (stored values; not masked)`);
  for (const w of cf.warnings) add('not decoded', w);
  return lines.length === 0 ? [] : ['  cf (decoded by default; --raw shows stored values)', ...lines];
}
