// One figure of `npm run bench`: a measured value, its unit, and its target where it has one.
export interface Figure {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** Undefined for figures printed for information only. */
  readonly target?: number;
  /** The target is a floor (a rate to reach), not a ceiling. */
  readonly atLeast?: boolean;
}
