// The GVR matrix: which apiserver serves which group/version/resource. Skewed GVRs (served by some
// servers only: the requests that are rerouted, or get a false 404 without a proxy) come first. With
// the cluster source, each cell also says what that server answered for that GVR per minute (from its
// audit log), false 404s apart. Virtualised: a cluster with CRDs has thousands of rows.
import { useQuery } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useDeferredValue, useMemo, useRef, useState } from 'react';
import type { ClusterGvrRates, RouteTableView } from '../../../proxy-core/contract/index.js';
import {
  CELL_TEXT,
  cellKey,
  cellRates,
  cellState,
  matrixItems,
  rateText,
  type CellRate,
  type CellState,
  type Item,
  type MatrixFilter,
} from './matrix-model.js';
import { queryKeys, useCoreClient } from '../../shared/client-context.js';
import { useServerNames } from '../../shared/server-names.js';
import { formatClock, shortRelease } from '../../shared/ui/format.js';
import { Empty, ErrorState, HealthBadge, Loading } from '../../shared/ui/states.js';
import { useMoment, useOffline } from '../../shared/view-mode.js';
import { MissingRegistrations } from '../../shared/MissingRegistrations.js';

export { cellRates, cellState, matrixItems, type CellRate, type CellState, type MatrixFilter } from './matrix-model.js';

export function GvrMatrix() {
  const client = useCoreClient();
  const offline = useOffline();
  const moment = useMoment();
  const query = useQuery({ queryKey: queryKeys.routeTable, queryFn: () => client.getRouteTable() });
  const overview = useQuery({ queryKey: queryKeys.overview, queryFn: () => client.getOverview() });
  const hasCluster = !offline && overview.data?.cluster !== undefined;
  const rates = useQuery({
    queryKey: queryKeys.clusterGvrRates,
    queryFn: () => client.getClusterGvrRates(),
    enabled: hasCluster,
    refetchInterval: 5_000,
  });
  // A session without a cluster source (a recording opened, another cluster) keeps the last rates in the
  // cache with the query disabled: they belong to the cluster before, not to this one.
  const perCell = useMemo(() => (hasCluster && rates.data ? cellRates(rates.data) : undefined), [hasCluster, rates.data]);
  const [filter, setFilter] = useState<MatrixFilter>('all');
  const [search, setSearch] = useState('');
  const deferredSearch = useDeferredValue(search);

  return (
    <section className="panel matrix" aria-labelledby="matrix-title">
      <header className="panel-head">
        <div>
          <h2 id="matrix-title">GVR matrix</h2>
          <p className="muted">
            Which apiserver serves which group/version/resource, from each server's own discovery
            {offline ? ', as the snapshot recorded it' : moment ? `, as recorded at ${formatClock(moment.at)}` : ''}.
          </p>
        </div>
        <div className="toolbar">
          <label className="field">
            <span>Show</span>
            <select value={filter} onChange={(e) => setFilter(e.target.value as MatrixFilter)}>
              <option value="all">All GVRs</option>
              <option value="skewed">Skewed only</option>
              <option value="uniform">Served everywhere</option>
            </select>
          </label>
          <label className="field">
            <span>Search</span>
            <input type="search" placeholder="group, version or resource" value={search} onChange={(e) => setSearch(e.target.value)} />
          </label>
        </div>
      </header>
      <Legend rates={hasCluster ? rates.data : undefined} />
      {query.isPending ? (
        <Loading what="the route table" />
      ) : query.isError ? (
        <ErrorState error={query.error} retry={() => void query.refetch()} />
      ) : (
        <MatrixBody view={query.data} filter={filter} search={deferredSearch} rates={perCell} />
      )}
    </section>
  );
}

function Legend({ rates }: { rates: ClusterGvrRates | undefined }) {
  return (
    <ul className="legend" aria-label="Legend">
      {(['served', 'missing', 'down', 'gone', 'stale', 'unknown'] as CellState[]).map((s) => (
        <li key={s}>
          <span className={`cell-chip cell-${s}`} aria-hidden="true" /> {CELL_TEXT[s]}
        </li>
      ))}
      <li>
        <span className="skew-mark" aria-hidden="true" /> skewed row
      </li>
      {rates && (
        <li>
          <span className="cell-rate">n/min</span> what the server answered, from its audit log
          {rates.seconds < 60 ? ` (the last ${Math.round(rates.seconds)} s, per minute)` : ' (the last minute)'};{' '}
          <span className="cell-false-404">false 404s</span> apart
        </li>
      )}
    </ul>
  );
}

function MatrixBody({
  view,
  filter,
  search,
  rates,
}: {
  view: RouteTableView;
  filter: MatrixFilter;
  search: string;
  rates: Map<string, CellRate> | undefined;
}) {
  const { items, shown } = useMemo(() => matrixItems(view, filter, search), [view, filter, search]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (items[i]?.kind === 'row' ? 30 : 32),
    getItemKey: (i) => items[i]?.key ?? i,
    overscan: 12,
  });
  const template = `minmax(16rem, 2.2fr) repeat(${view.columns.length}, minmax(7.5rem, 1fr))`;

  if (view.columns.length === 0) return <Empty>No apiservers are configured.</Empty>;
  if (view.rows.length === 0) return <Empty>No discovery has been read yet: the GVRs appear as soon as a server answers.</Empty>;

  return (
    <>
      <MissingRegistrations missing={view.missingRegistrations} />
      <p className="summary" aria-live="polite">
        Showing <strong>{shown}</strong> of {view.rows.length} GVRs ·{' '}
        <strong className={view.skewedCount ? 'warn-text' : ''}>{view.skewedCount} skewed</strong>
      </p>
      <div className="matrix-table" role="table" aria-label="GVRs by apiserver" aria-rowcount={items.length + 1}>
        <MatrixHeader view={view} template={template} />
        {items.length === 0 ? (
          <Empty>No GVR matches “{search}”.</Empty>
        ) : (
          <div className="matrix-scroll" role="rowgroup" ref={scrollRef} tabIndex={0} aria-label="GVR rows, scroll with the arrow keys">
            <div className="matrix-virtual" role="presentation" style={{ height: virtualizer.getTotalSize() }}>
              {virtualizer.getVirtualItems().map((v) => {
                const item = items[v.index]!;
                return (
                  <MatrixItem key={item.key} item={item} index={v.index} start={v.start} template={template} view={view} rates={rates} />
                );
              })}
            </div>
          </div>
        )}
      </div>
    </>
  );
}

/** The header row: each server with its release and health. */
function MatrixHeader({ view, template }: { view: RouteTableView; template: string }) {
  const nameOf = useServerNames();
  return (
    <div className="matrix-row matrix-header" role="row" style={{ gridTemplateColumns: template }}>
      <div role="columnheader" className="matrix-gvr">
        Group / version / resource
      </div>
      {view.columns.map((c) => (
        <div role="columnheader" key={c.name} className="matrix-col">
          <span className="col-name" title={nameOf(c.name) === c.name ? undefined : c.name}>
            {nameOf(c.name)}
          </span>
          <span className="col-meta">
            <span className="release" title={c.gitVersion}>
              {shortRelease(c.gitVersion)}
            </span>
            <HealthBadge health={c.health} />
          </span>
        </div>
      ))}
    </div>
  );
}

/** One virtual row: a section heading, an API group's heading, or a GVR with its cell per server. */
function MatrixItem({
  item,
  index,
  start,
  template,
  view,
  rates,
}: {
  item: Item;
  index: number;
  start: number;
  template: string;
  view: RouteTableView;
  rates: Map<string, CellRate> | undefined;
}) {
  const nameOf = useServerNames();
  const common = {
    'data-index': index,
    role: 'row',
    style: { transform: `translateY(${start}px)`, gridTemplateColumns: template },
  } as const;
  if (item.kind === 'section') {
    return (
      <div {...common} key={item.key} className="matrix-row matrix-section">
        <div role="cell" className="span-all">
          {item.label} <span className="count">{item.count}</span>
        </div>
      </div>
    );
  }
  if (item.kind === 'group') {
    return (
      <div {...common} key={item.key} className="matrix-row matrix-group">
        <div role="cell" className="span-all">
          {item.group || 'core'} <span className="count">{item.count}</span>
        </div>
      </div>
    );
  }
  const r = item.row;
  return (
    <div
      {...common}
      key={item.key}
      className={`matrix-row matrix-gvr-row${item.skewed ? ' skewed' : ''}`}
      data-gvr={`${r.group}/${r.version}/${r.resource}`}
    >
      <div role="rowheader" className="matrix-gvr">
        <span className="gv">
          {r.group ? `${r.group}/` : ''}
          {r.version}/
        </span>
        <span className="res">{r.resource}</span>
      </div>
      {view.columns.map((c) => {
        const state = cellState(c, r);
        const rate = rates?.get(cellKey(c.name, r));
        const said = rate ? `${CELL_TEXT[state]}; answered ${rateText(rate)}` : CELL_TEXT[state];
        return (
          <div role="cell" key={c.name} className={`matrix-cell cell-${state}`} title={`${nameOf(c.name)}: ${said}`}>
            <span className="cell-chip" aria-hidden="true" />
            <span className="cell-text">{CELL_TEXT[state]}</span>
            {rate && <span className="cell-rate">{rate.requests}/min</span>}
            {rate && rate.false404s > 0 && <span className="cell-rate cell-false-404">{rate.false404s} false 404</span>}
          </div>
        );
      })}
    </div>
  );
}
