// A time coordinate as plots need it: numbers counted in fixed units from an instant of the
// proleptic Gregorian calendar, so each value is a JS Date. The query layer's CfTime has this
// shape; the plot layer names its own so that it imports nothing above errors. Pure: no Node APIs.

export interface TimeScale {
  /** Milliseconds in one coordinate unit. */
  readonly unitMs: number;
  /** The instant of value 0, ms since 1970 UTC. */
  readonly epochMs: number;
}

/** The instant a coordinate value names. */
export function instantOf(scale: TimeScale, value: number): Date {
  return new Date(scale.epochMs + value * scale.unitMs);
}
