// Server health's charts over the rollout: each apiserver's probe latency, and the requests it failed
// per 5-second bucket.
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { HealthHistory, HealthSample } from '../../../proxy-core/contract/index.js';
import type { ServerNamer } from '../../shared/server-names.js';
import { formatClock, formatMs } from '../../shared/ui/format.js';
import { Empty } from '../../shared/ui/states.js';

const SERIES_COLORS = ['#5b7cfa', '#3fa66b', '#e8a23a', '#a371f7', '#e5534b', '#2bb3c0', '#d16ba5', '#8b949e'];

/** The time axis both charts share: clock times across the samples' span. */
const TIME_AXIS = {
  dataKey: 'at',
  type: 'number',
  domain: ['dataMin', 'dataMax'],
  tickFormatter: (t: number) => formatClock(t),
  minTickGap: 48,
  className: 'axis',
} as const;

export function LatencyChart({ history, nameOf }: { history: { name: string; samples: HealthSample[] }[]; nameOf: ServerNamer }) {
  const withLatency = history.map((h) => ({
    name: h.name,
    shown: nameOf(h.name),
    data: h.samples.filter((s) => s.latencyMs !== undefined).map((s) => ({ at: s.at, latencyMs: s.latencyMs })),
  }));
  if (withLatency.every((h) => h.data.length === 0)) return <Empty>No latency measured yet.</Empty>;
  return (
    <div className="chart" role="img" aria-label="Probe latency per apiserver over time">
      <ResponsiveContainer width="100%" height={200}>
        <LineChart margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" className="grid" vertical={false} />
          <XAxis {...TIME_AXIS} allowDuplicatedCategory={false} />
          <YAxis unit=" ms" width={60} className="axis" />
          <Tooltip
            labelFormatter={(t) => formatClock(Number(t))}
            formatter={(v) => formatMs(Number(v))}
            isAnimationActive={false}
            wrapperClassName="tooltip"
          />
          <Legend />
          {withLatency.map((h, i) => (
            <Line
              key={h.name}
              data={h.data}
              dataKey="latencyMs"
              name={h.shown}
              stroke={SERIES_COLORS[i % SERIES_COLORS.length]}
              dot={false}
              strokeWidth={1.5}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

export type ErrorRow = { at: number } & Record<string, number>;

/** One row per 5-second bucket in which any server failed a request; each server's count as a column. */
export function errorRows(history: HealthHistory['servers']): ErrorRow[] {
  const rows = new Map<number, ErrorRow>();
  for (const h of history) {
    for (const b of h.errors ?? []) {
      const row = rows.get(b.at) ?? ({ at: b.at } as ErrorRow);
      row[h.name] = (row[h.name] ?? 0) + b.count;
      rows.set(b.at, row);
    }
  }
  return [...rows.values()].sort((a, b) => a.at - b.at);
}

export function ErrorChart({ history, nameOf }: { history: HealthHistory['servers']; nameOf: ServerNamer }) {
  const rows = errorRows(history);
  if (rows.length === 0) return <Empty>No request through the port has failed at any apiserver.</Empty>;
  const total = (name: string) => rows.reduce((n, r) => n + (r[name] ?? 0), 0);
  return (
    <div
      className="chart"
      role="img"
      aria-label={`Failed requests per apiserver per 5 seconds: ${history.map((h) => `${nameOf(h.name)} ${total(h.name)}`).join(', ')}`}
    >
      <ResponsiveContainer width="100%" height={180}>
        <BarChart data={rows} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" className="grid" vertical={false} />
          <XAxis {...TIME_AXIS} />
          <YAxis allowDecimals={false} width={60} className="axis" />
          <Tooltip labelFormatter={(t) => `${formatClock(Number(t))} (5 s)`} isAnimationActive={false} wrapperClassName="tooltip" />
          <Legend />
          {history.map((h, i) => (
            <Bar
              key={h.name}
              dataKey={h.name}
              name={nameOf(h.name)}
              stackId="errors"
              fill={SERIES_COLORS[i % SERIES_COLORS.length]}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
