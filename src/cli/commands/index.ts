// Every `floe` command, in the order `floe help` lists them. Only names and summaries live here;
// a command's module (and what it imports: the engine, the S3 SDK, PNG encoding, fast-check) is
// loaded when that command runs, so `floe --version` or `floe log` do not pay for the others.
import type { CommandSpec } from '../command.ts';

export interface CommandEntry {
  readonly name: string;
  /** One line for `floe help`. */
  readonly summary: string;
  load(): Promise<CommandSpec>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: 'demo', summary: 'create a repository, write a year of gridded data from concurrent writers, tag, query', load: async () => (await import('../demo.ts')).demoCommand },
  { name: 'init', summary: 'create an empty repository', load: async () => (await import('./init.ts')).initCommand },
  { name: 'status', summary: 'show the repository: storage, availability, branches, tags, feature flags', load: async () => (await import('./status.ts')).statusCommand },
  { name: 'log', summary: 'list a version and its ancestors: ids, times, messages', load: async () => (await import('./log.ts')).logCommand },
  { name: 'branch', summary: 'list, create, delete or reset branches', load: async () => (await import('./branch.ts')).branchCommand },
  { name: 'tag', summary: 'list, create or delete tags', load: async () => (await import('./tag.ts')).tagCommand },
  { name: 'config', summary: "show, set or edit the repository configuration (the reference's stored form, as YAML)", load: async () => (await import('./config.ts')).configCommand },
  { name: 'diff', summary: 'show what changed between two versions (nodes and chunks)', load: async () => (await import('./diff.ts')).diffCommand },
  { name: 'ls', summary: 'list groups and arrays: shape, dtype, chunking, codecs, stored bytes', load: async () => (await import('./ls.ts')).lsCommand },
  { name: 'show', summary: "show a node's metadata and attributes", load: async () => (await import('./show.ts')).showCommand },
  { name: 'cat', summary: "print an array's values (NumPy-style, elided when large)", load: async () => (await import('./cat.ts')).catCommand },
  { name: 'plot', summary: 'draw a 2-D slice as a heat map with a colour bar, or a 1-D one as a line plot (PNG)', load: async () => (await import('./plot.ts')).plotCommand },
  { name: 'query', summary: 'run a declarative slice query and print the values it selects', load: async () => (await import('./query.ts')).queryCommand },
  { name: 'explain', summary: 'plan a query without reading data: lookups, chunks, requests, bytes', load: async () => (await import('./query.ts')).explainCommand },
  { name: 'import', summary: 'import a Zarr v3 store or a Zarr v1 array into the repository (one commit)', load: async () => (await import('./import.ts')).importCommand },
  { name: 'worker', summary: 'run the tasks of `floe import --distributed` from a BullMQ queue on Redis, until stopped', load: async () => (await import('./worker.ts')).workerCommand },
  { name: 'virtualize', summary: 'record NetCDF-3 files and kerchunk references as arrays whose chunks stay in the files (one commit)', load: async () => (await import('./virtualize.ts')).virtualizeCommand },
  { name: 'export', summary: 'write an array or group of a version out as a plain Zarr v3 store', load: async () => (await import('./export.ts')).exportCommand },
  { name: 'serve', summary: 'serve every branch, tag and snapshot as a read-only Zarr v3 store over HTTP, plus queries', load: async () => (await import('./serve.ts')).serveCommand },
  { name: 'expire', summary: 'expire snapshots older than a cutoff (then run floe gc to free their space)', load: async () => (await import('./expire.ts')).expireCommand },
  { name: 'gc', summary: 'delete unreachable objects (after floe expire, abandoned writes)', load: async () => (await import('./gc.ts')).gcCommand },
  { name: 'check', summary: "verify every branch's and tag's snapshots: report chunk refs outside their array's grid", load: async () => (await import('./check.ts')).checkCommand },
  { name: 'conformance', summary: 'compare Floe with zarrita or the reference Icechunk on generated cases', load: async () => (await import('./conformance.ts')).conformanceCommand },
];
