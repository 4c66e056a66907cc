// CF attributes that describe rather than transform (CF 1.11 §3.5 flags, §5 coordinates,
// §5.6 grid_mapping, §7.1 bounds, §7.3 cell_methods, §2.5.1 valid ranges): parsed into
// structured metadata. Values are never changed by them (valid ranges are reported, not applied:
// see docs/cf.md).
import type { JsonValue } from '../json.ts';

/** Flag labels: `flag_meanings` paired with `flag_values` and/or `flag_masks`. */
export interface CfFlags {
  readonly meanings: readonly string[];
  readonly values?: readonly number[];
  readonly masks?: readonly number[];
}

/** One entry of `cell_methods` (`time: mean (interval: 1 hour)`). */
export interface CfCellMethod {
  /** The dimension or coordinate names (or `area`) the method applies over. */
  readonly names: readonly string[];
  readonly method: string;
  /** `where land`, `over years`, `within days`, with its type, when given. */
  readonly where?: string;
  readonly over?: string;
  readonly within?: string;
  /** The parenthesised text after the method (`interval: 1 hour`, a comment), when given. */
  readonly comment?: string;
}

/** One grid mapping of `grid_mapping` (short form `crs`, extended form `crs: x y`). */
export interface CfGridMapping {
  /** The grid mapping variable's name. */
  readonly name: string;
  /** The coordinates it applies to (the extended form `crs: x y`), empty for the short form. */
  readonly coordinates: readonly string[];
}

/** A variable's CF metadata that is not a value transform: coordinates, bounds, grid mappings, cell methods, flags, valid range. */
export interface CfMetadata {
  readonly coordinates?: readonly string[];
  readonly bounds?: string;
  readonly gridMapping?: readonly CfGridMapping[];
  readonly cellMethods?: readonly CfCellMethod[];
  readonly flags?: CfFlags;
  /** valid_min / valid_max / valid_range, as stored (in the stored domain). */
  readonly validRange?: { readonly min?: number; readonly max?: number };
}

const words = (text: string): string[] => text.trim().split(/\s+/).filter((w) => w.length > 0);

function numbers(value: JsonValue | undefined): number[] | undefined {
  if (value === undefined || value === null) return undefined;
  const items = Array.isArray(value) ? value : [value];
  const out = items.map((v) => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : NaN));
  return out.every(Number.isFinite) ? out : undefined;
}

/** The structured CF metadata of a variable's attributes; `warnings` says what was malformed and skipped. */
export function cfMetadata(attributes: Readonly<Record<string, JsonValue>>, where: string): { metadata: CfMetadata; warnings: string[] } {
  const warnings: string[] = [];
  const out: { -readonly [K in keyof CfMetadata]: CfMetadata[K] } = {};
  const text = (name: string): string | undefined => {
    const v = attributes[name];
    if (v === undefined) return undefined;
    if (typeof v === 'string') return v;
    warnings.push(`${where}: ${name} is not text; ignored`);
    return undefined;
  };
  const coordinates = text('coordinates');
  if (coordinates !== undefined) out.coordinates = words(coordinates);
  const bounds = text('bounds');
  if (bounds !== undefined && bounds.trim() !== '') out.bounds = bounds.trim();
  const grid = text('grid_mapping');
  if (grid !== undefined) out.gridMapping = parseGridMapping(grid);
  const cell = text('cell_methods');
  if (cell !== undefined) out.cellMethods = parseCellMethods(cell);
  const flags = parseFlags(attributes, where, warnings);
  if (flags) out.flags = flags;
  const range = numbers(attributes.valid_range);
  const min = numbers(attributes.valid_min)?.[0] ?? range?.[0];
  const max = numbers(attributes.valid_max)?.[0] ?? range?.[1];
  if (min !== undefined || max !== undefined) out.validRange = { ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) };
  return { metadata: Object.freeze(out), warnings };
}

function parseFlags(attributes: Readonly<Record<string, JsonValue>>, where: string, warnings: string[]): CfFlags | undefined {
  const meaningsText = attributes.flag_meanings;
  if (meaningsText === undefined) return undefined;
  if (typeof meaningsText !== 'string') {
    warnings.push(`${where}: flag_meanings is not text; no flag labels`);
    return undefined;
  }
  const meanings = words(meaningsText);
  const values = numbers(attributes.flag_values);
  const masks = numbers(attributes.flag_masks);
  for (const [name, list, given] of [['flag_values', values, attributes.flag_values], ['flag_masks', masks, attributes.flag_masks]] as const) {
    if (given !== undefined && (list === undefined || list.length !== meanings.length)) {
      warnings.push(`${where}: ${name} must hold one number per word of flag_meanings (${meanings.length}); no flag labels`);
      return undefined;
    }
  }
  if (!values && !masks) return undefined;
  return Object.freeze({ meanings, ...(values ? { values } : {}), ...(masks ? { masks } : {}) });
}

/**
 * The meanings a stored value carries: with flag_values alone, the one whose value it equals; with
 * flag_masks alone, each whose bits are all set; with both, each where (value & mask) == flag value.
 */
export function flagLabels(flags: CfFlags, value: number | bigint): string[] {
  const v = BigInt.asUintN(64, BigInt(value));
  const out: string[] = [];
  flags.meanings.forEach((meaning, i) => {
    const fv = flags.values?.[i];
    const mask = flags.masks?.[i];
    if (mask === undefined) {
      if (fv !== undefined && BigInt(value) === BigInt(fv)) out.push(meaning);
      return;
    }
    const m = BigInt.asUintN(64, BigInt(mask));
    const want = fv === undefined ? m : BigInt.asUintN(64, BigInt(fv));
    if ((v & m) === want) out.push(meaning);
  });
  return out;
}

function parseGridMapping(text: string): CfGridMapping[] {
  if (!text.includes(':')) return words(text).map((name) => ({ name, coordinates: [] }));
  const out: CfGridMapping[] = [];
  for (const token of words(text)) {
    if (token.endsWith(':')) out.push({ name: token.slice(0, -1), coordinates: [] });
    else if (out.length > 0) (out[out.length - 1]!.coordinates as string[]).push(token);
  }
  return out;
}

/** "time: mean (interval: 1 hr) area: sum where land over years" into its methods. */
function parseCellMethods(text: string): CfCellMethod[] {
  const out: CfCellMethod[] = [];
  const tokens = text.match(/\([^)]*\)|[^\s()]+/g) ?? [];
  let names: string[] = [];
  let current: { names: string[]; method: string; where?: string; over?: string; within?: string; comment?: string } | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.startsWith('(')) {
      if (current) current.comment = token.slice(1, -1).trim();
    } else if (token.endsWith(':')) {
      if (current) {
        out.push(current);
        current = undefined;
        names = [];
      }
      names.push(token.slice(0, -1));
    } else if (current && (token === 'where' || token === 'over' || token === 'within') && tokens[i + 1] !== undefined) {
      current[token] = tokens[++i]!;
    } else if (!current && names.length > 0) {
      current = { names, method: token };
    }
  }
  if (current) out.push(current);
  return out;
}
