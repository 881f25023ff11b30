// The reader of the servers' /metrics (scrape.ts) against the text exposition format as the
// Prometheus documentation defines it (version 0.0.4), with what OpenMetrics adds that a server may
// send anyway (exemplars, a trailing "# EOF"): fast-check draws families of every type, label values
// with every escape, the blanks allowed between tokens, comments and timestamps; each drawn scrape is
// rendered to text and the parse must give back exactly the counters and gauges that were drawn.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseScrape, type MetricFamilies, type MetricSample } from './scrape.js';

type Kind = 'counter' | 'gauge' | 'untyped' | 'histogram' | 'summary';

interface DrawnSample {
  readonly labels: [string, string][];
  /** As written in the text, and the number it stands for (NaN and the infinities are not kept). */
  readonly value: { readonly text: string; readonly number: number };
  readonly timestamp?: string;
  readonly exemplar?: string;
}

interface DrawnFamily {
  readonly name: string;
  readonly kind: Kind;
  readonly help?: string;
  /** Whether the TYPE line is written (an untyped family never has one). */
  readonly typed: boolean;
  readonly samples: DrawnSample[];
  readonly wanted: boolean;
}

/** Blanks between tokens: the format allows any run of spaces and tabs. */
const blank = fc.constantFrom('', ' ', '  ', '\t', ' \t ');
const identifier = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,12}$/);
const labelValue = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.constantFrom('', '\\', '"', '\n', 'C:\\dir\\', 'say "hi"\nbye', '{a="b"}', ' # {x="y"} 1', '}', ',', '='),
);

const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
const value = fc
  .oneof(
    fc.integer({ min: 0, max: 2 ** 53 - 1 }).map(String),
    finite.map(String),
    finite.map((d) => d.toExponential()),
    finite.filter((d) => d >= 0).map((d) => `+${d}`),
    fc.constantFrom('.5', '5.', '1E3', '-0.0e-0', '0001'),
  )
  .map((text) => ({ text, number: Number(text) }));
const notFinite = fc.constantFrom('NaN', 'nan', '+Inf', '-Inf', 'Inf', '+inf').map((text) => ({ text, number: Number.NaN }));

const sample = (labelNames: string[]) =>
  fc.record(
    {
      labels: fc.tuple(...labelNames.map((n) => labelValue.map((v): [string, string] => [n, v]))),
      value: fc.oneof({ arbitrary: value, weight: 4 }, { arbitrary: notFinite, weight: 1 }),
      timestamp: fc.integer({ min: -(2 ** 40), max: 2 ** 40 }).map(String),
      exemplar: fc.tuple(labelValue, finite).map(([id, v]) => `# {trace_id="${escapeLabel(id)}"} ${v}`),
    },
    { requiredKeys: ['labels', 'value'] },
  );

function family(index: number): fc.Arbitrary<DrawnFamily> {
  return fc
    .record({
      base: identifier,
      kind: fc.constantFrom<Kind>('counter', 'gauge', 'untyped', 'histogram', 'summary'),
      help: fc.option(fc.string({ unit: 'grapheme', maxLength: 30 }), { nil: undefined }),
      labelNames: fc.uniqueArray(identifier, { maxLength: 4 }).map((ns) => ns.filter((n) => n !== 'le' && n !== 'quantile')),
      wanted: fc.boolean(),
    })
    .chain(({ base, kind, help, labelNames, wanted }) =>
      fc
        // One series per label set: the format has no duplicates.
        .uniqueArray(sample(labelNames), { maxLength: 4, selector: (s) => JSON.stringify(s.labels) })
        .map((samples) => ({
          // Every name ends _f<index>: no family is another's name with _bucket, _sum or _count added.
          name: `${base}_f${index}`,
          kind,
          ...(help === undefined ? {} : { help }),
          typed: kind !== 'untyped',
          samples,
          wanted,
        })),
    );
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** A sample line, its blanks drawn by `pick` (a trailing comma in the label set is allowed). */
function line(name: string, labels: [string, string][], rest: string, pick: () => string): string {
  if (labels.length === 0 && pick() === '') return `${name}${someBlankOf(pick)}${rest}`;
  const pairs = labels.map(([k, v]) => `${pick()}${k}${pick()}=${pick()}"${escapeLabel(v)}"${pick()}`);
  const trailing = labels.length > 0 && pick() === ' ' ? ',' : '';
  return `${name}${pick()}{${pairs.join(',')}${trailing}${pick()}}${someBlankOf(pick)}${rest}`;
}

function someBlankOf(pick: () => string): string {
  return pick() || ' ';
}

function render(families: DrawnFamily[], pick: () => string, eof: boolean): string {
  const out: string[] = [];
  for (const f of families) {
    if (pick() === '\t') out.push(`# a comment${pick()}`, '');
    if (f.help !== undefined)
      out.push(`#${someBlankOf(pick)}HELP${someBlankOf(pick)}${f.name} ${f.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`);
    if (f.typed) out.push(`#${someBlankOf(pick)}TYPE${someBlankOf(pick)}${f.name}${someBlankOf(pick)}${f.kind}`);
    for (const s of f.samples) {
      const tail = [s.value.text, s.timestamp, s.exemplar].filter((x) => x !== undefined).join(someBlankOf(pick)) + pick();
      if (f.kind === 'histogram') {
        out.push(line(`${f.name}_bucket`, [...s.labels, ['le', '+Inf']], tail, pick));
        out.push(line(`${f.name}_sum`, s.labels, tail, pick), line(`${f.name}_count`, s.labels, tail, pick));
      } else if (f.kind === 'summary') {
        out.push(line(f.name, [...s.labels, ['quantile', '0.5']], tail, pick));
        out.push(line(`${f.name}_sum`, s.labels, tail, pick), line(`${f.name}_count`, s.labels, tail, pick));
      } else out.push(line(f.name, s.labels, tail, pick));
    }
  }
  return out.join('\n') + (eof ? '\n# EOF\n' : pick() === '' ? '' : '\n');
}

/** What parseScrape must give back for the drawn families. */
function expected(families: DrawnFamily[]): Map<string, MetricSample[]> {
  const out = new Map<string, MetricSample[]>();
  for (const f of families) {
    if (!f.wanted || f.kind === 'histogram' || f.kind === 'summary') continue;
    const samples = f.samples
      .filter((s) => Number.isFinite(s.value.number))
      .map((s) => ({ labels: Object.fromEntries(s.labels), value: s.value.number }));
    if (samples.length > 0) out.set(f.name, samples);
  }
  return out;
}

const scrape = fc
  .integer({ min: 0, max: 6 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => family(i))))
  .chain((families) =>
    fc.record({
      families: fc.constant(families),
      blanks: fc.array(blank, { minLength: 1, maxLength: 64 }),
      eof: fc.boolean(),
    }),
  );

function asObject(families: MetricFamilies) {
  return Object.fromEntries([...families].map(([k, v]) => [k, v.map((s) => ({ labels: { ...s.labels }, value: s.value }))]));
}

describe('parseScrape, fuzzed against the text format', () => {
  it('gives back exactly the counters and gauges drawn, whatever the blanks, escapes, timestamps and exemplars', () => {
    fc.assert(
      fc.property(scrape, ({ families, blanks, eof }) => {
        let i = 0;
        const pick = () => blanks[i++ % blanks.length] as string;
        const text = render(families, pick, eof);
        const wanted = new Set(families.filter((f) => f.wanted).map((f) => f.name));
        expect(asObject(parseScrape(text, wanted)), text).toEqual(asObject(expected(families)));
      }),
      { numRuns: 2_000, seed: 20261128 },
    );
  });
});

describe('parseScrape refuses what is not the format, naming the line', () => {
  const wanted = new Set(['a']);
  it.each([
    ['a{x="1"} one', /^line 2: "one" is not a number/],
    ['a{x="1} 1', /^line 2: a label value has no closing quote/],
    ['a{x=1} 1', /^line 2: a quoted value was expected for label x/],
    ['a{x="1" y="2"} 1', /^line 2: "," or "}" was expected after a label/],
    ['a{x="1",x="2"} 1', /^line 2: label x is given twice/],
    ['a 1 12:00', /^line 2: "12:00" is not a timestamp/],
    ['a 1 100 more', /^line 2: the line goes on after the timestamp/],
    ['<html><body>Forbidden</body></html>', /^line 2: a metric name was expected/],
  ])('%s', (bad, error) => {
    expect(() => parseScrape(`# TYPE a counter\n${bad}\n`, wanted)).toThrow(error);
  });
});
