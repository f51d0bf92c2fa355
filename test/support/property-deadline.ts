/** The work a property-based test is given, from which its deadline follows. */
export interface PropertyWork {
  /** fast-check's numRuns: the bound on the work */
  runs: number;
  /**
   * What one run is allowed: the test states it from what a run does (how many HTTP requests, SQL
   * statements or validations), several times what a run took on a 2-core machine with a load
   * average of 10 to 15, where Jest's 30 s default failed.
   */
  perRunMs: number;
  /** what the test does once besides its runs (a final invariant check); 10 s unless given */
  fixedMs?: number;
}

/**
 * The Jest timeout of a property-based test, from the work it is given rather than from how fast
 * some machine does it. It only ends a test that hangs; no test asserts a speed.
 */
export function propertyDeadline(work: PropertyWork): number {
  return work.runs * work.perRunMs + (work.fixedMs ?? 10_000);
}

/** `it` for a property-based test, with the deadline of its work. */
export function propertyTest(name: string, work: PropertyWork, fn: () => Promise<void>): void {
  it(name, fn, propertyDeadline(work));
}
