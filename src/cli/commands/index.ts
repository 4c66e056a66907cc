// Every `floe` command, in the order `floe help` lists them.
import type { CommandSpec } from '../command.ts';
import { branchCommand } from './branch.ts';
import { catCommand } from './cat.ts';
import { conformanceCommand } from './conformance.ts';
import { demoCommand } from '../demo.ts';
import { diffCommand } from './diff.ts';
import { expireCommand } from './expire.ts';
import { exportCommand } from './export.ts';
import { importCommand } from './import.ts';
import { gcCommand } from './gc.ts';
import { initCommand } from './init.ts';
import { logCommand } from './log.ts';
import { lsCommand } from './ls.ts';
import { plotCommand } from './plot.ts';
import { explainCommand, queryCommand } from './query.ts';
import { serveCommand } from './serve.ts';
import { showCommand } from './show.ts';
import { statusCommand } from './status.ts';
import { tagCommand } from './tag.ts';

export const COMMANDS: readonly CommandSpec[] = [
  demoCommand,
  initCommand,
  statusCommand,
  logCommand,
  branchCommand,
  tagCommand,
  diffCommand,
  lsCommand,
  showCommand,
  catCommand,
  plotCommand,
  queryCommand,
  explainCommand,
  importCommand,
  exportCommand,
  serveCommand,
  expireCommand,
  gcCommand,
  conformanceCommand,
];
