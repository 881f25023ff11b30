// One read of an apiserver's /metrics, parsed once into the few families Peerscope reads; every reader
// of the scrape (the server's own peer-proxy counters, its request counts, the deprecated APIs
// requested) takes its families from here instead of parsing the text again. The parser is this
// module's own, written to the text exposition format (version 0.0.4) as the Prometheus
// documentation defines it; docs/decisions.md says why no library.

/** One series of a counter or gauge: its labels and its value. */
export interface MetricSample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The families a scrape had, by name; a family the server printed no series of is absent. */
export type MetricFamilies = ReadonlyMap<string, readonly MetricSample[]>;

/** Families whose samples are not one value each: their lines are skipped. */
const SPREAD_TYPES = new Set(['histogram', 'gaugehistogram', 'summary']);
const SPREAD_SUFFIXES = ['_bucket', '_sum', '_count', '_gsum', '_gcount', '_created'];
const NAME = /[a-zA-Z_:][a-zA-Z0-9_:]*/y;
const LABEL_NAME = /[a-zA-Z_][a-zA-Z0-9_]*/y;
const BLANKS = /[ \t]*/y;
const TOKEN = /[^ \t]+/y;
/** A float as Go's strconv.ParseFloat reads one in the format (decimal; Inf and NaN in any case). */
const FLOAT = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN])$/;
const TIMESTAMP = /^-?\d+$/;

class ScrapeSyntaxError extends Error {
  constructor(lineNumber: number, what: string) {
    super(`line ${lineNumber}: ${what}`);
  }
}

/** Reads the text line by line; `at` is the offset in the current line. */
class LineReader {
  at = 0;
  constructor(
    readonly text: string,
    readonly number: number,
  ) {}

  match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.at;
    const m = pattern.exec(this.text);
    if (!m) return undefined;
    this.at = pattern.lastIndex;
    return m[0];
  }

  skipBlanks(): boolean {
    const before = this.at;
    this.match(BLANKS);
    return this.at > before;
  }

  peek(): string | undefined {
    return this.text[this.at];
  }

  fail(what: string): never {
    throw new ScrapeSyntaxError(this.number, `${what} in ${JSON.stringify(this.text.slice(0, 200))}`);
  }
}

function floatOf(token: string, line: LineReader): number {
  if (!FLOAT.test(token)) line.fail(`"${token}" is not a number`);
  const lower = token.toLowerCase();
  if (lower.endsWith('nan')) return Number.NaN;
  if (lower.includes('inf')) return token.startsWith('-') ? -Infinity : Infinity;
  return Number(token);
}

/** A quoted label value, its escapes (\\, \" and \n) undone; the reader stands on the opening quote. */
function labelValue(line: LineReader): string {
  let out = '';
  for (let i = line.at + 1; i < line.text.length; i++) {
    const c = line.text[i];
    if (c === '"') {
      line.at = i + 1;
      return out;
    }
    if (c === '\\' && i + 1 < line.text.length) {
      const next = line.text[++i];
      out += next === 'n' ? '\n' : next;
    } else out += c;
  }
  return line.fail('a label value has no closing quote');
}

/** `{name="value", …}` (blanks between the tokens, a trailing comma allowed); the reader stands on `{`. */
function labelSet(line: LineReader): Record<string, string> {
  const labels: Record<string, string> = {};
  line.at++;
  for (;;) {
    line.skipBlanks();
    if (line.peek() === '}') {
      line.at++;
      return labels;
    }
    const name = line.match(LABEL_NAME) ?? line.fail('a label name was expected');
    line.skipBlanks();
    if (line.peek() !== '=') line.fail(`"=" was expected after label ${name}`);
    line.at++;
    line.skipBlanks();
    if (line.peek() !== '"') line.fail(`a quoted value was expected for label ${name}`);
    if (Object.hasOwn(labels, name)) line.fail(`label ${name} is given twice`);
    labels[name] = labelValue(line);
    line.skipBlanks();
    if (line.peek() === ',') line.at++;
    else if (line.peek() !== '}') line.fail('"," or "}" was expected after a label');
  }
}

interface SampleLine {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** `{labels} value [timestamp] [# exemplar]` after the metric name: the exemplar (OpenMetrics) is read past, not kept. */
function sampleLine(line: LineReader, name: string): SampleLine {
  line.skipBlanks();
  const labels = line.peek() === '{' ? labelSet(line) : {};
  line.skipBlanks();
  const value = floatOf(line.match(TOKEN) ?? line.fail('a value was expected'), line);
  const blank = line.skipBlanks();
  const timestamp = line.peek() === '#' ? undefined : line.match(TOKEN);
  if (timestamp !== undefined && (!blank || !TIMESTAMP.test(timestamp))) line.fail(`"${timestamp}" is not a timestamp`);
  line.skipBlanks();
  if (line.at < line.text.length && line.peek() !== '#') line.fail('the line goes on after the timestamp');
  return { name, labels, value };
}

/** `# TYPE name type`, `# HELP name text` or any other comment; gives the type a TYPE line declares. */
function commentLine(line: LineReader): { name: string; type: string } | undefined {
  line.at++;
  line.skipBlanks();
  if (line.match(TOKEN) !== 'TYPE' || !line.skipBlanks()) return undefined;
  const name = line.match(NAME) ?? line.fail('a metric name was expected after TYPE');
  line.skipBlanks();
  return { name, type: (line.match(TOKEN) ?? line.fail(`a type was expected for ${name}`)).toLowerCase() };
}

/** Whether `name` is a line of a histogram or summary family (its buckets, quantiles, sum or count). */
function spread(name: string, types: ReadonlyMap<string, string>): boolean {
  if (SPREAD_TYPES.has(types.get(name) ?? '')) return true;
  const suffix = SPREAD_SUFFIXES.find((s) => name.endsWith(s));
  return suffix !== undefined && SPREAD_TYPES.has(types.get(name.slice(0, -suffix.length)) ?? '');
}

/**
 * The counter and gauge families of `wanted` in a text-format scrape (untyped ones too). A series
 * whose value is not a finite number is left out (kube-apiserver counts never are); the lines of the
 * other families are read up to their name. Throws, naming the line, when the text is not the format.
 */
export function parseScrape(text: string, wanted: ReadonlySet<string>): MetricFamilies {
  const families = new Map<string, MetricSample[]>();
  const types = new Map<string, string>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = new LineReader(lines[i] as string, i + 1);
    line.skipBlanks();
    if (line.at === line.text.length) continue;
    if (line.peek() === '#') {
      const declared = commentLine(line);
      if (declared) types.set(declared.name, declared.type);
      continue;
    }
    const name = line.match(NAME) ?? line.fail('a metric name was expected');
    // Most of a kube-apiserver's lines are histogram buckets Peerscope does not read: not read past their name.
    if (!wanted.has(name)) continue;
    const sample = sampleLine(line, name);
    if (!Number.isFinite(sample.value) || spread(sample.name, types)) continue;
    const samples = families.get(sample.name);
    if (samples) samples.push({ labels: sample.labels, value: sample.value });
    else families.set(sample.name, [{ labels: sample.labels, value: sample.value }]);
  }
  return families;
}
