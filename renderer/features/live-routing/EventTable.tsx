// The request stream as a virtualised table, newest first: a batch shifts the rows, not the elements.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import { useServerNames } from '../../shared/server-names.js';
import { formatMs, formatTime, outcomeStyle } from '../../shared/ui/format.js';
import { Empty } from '../../shared/ui/states.js';
import type { StreamRow } from './stream-rows.js';

const TEMPLATE = '7.5rem 9rem minmax(14rem, 3fr) 6rem 9.5rem 7.5rem 4.5rem 5.5rem';
const COLUMNS = ['time', 'client', 'request', 'handling', 'outcome', 'answered by', 'status', 'latency'];

export function EventTable({ rows, withSource }: { rows: readonly StreamRow[]; withSource: boolean }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const nameOf = useServerNames();
  // Rows are keyed by position: a batch shifts every event down, and reusing the row elements (new
  // text) is far cheaper than unmounting and mounting every visible row ten times a second.
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 30,
    overscan: 15,
  });
  if (rows.length === 0) return <Empty>No request matches the outcomes shown.</Empty>;
  const template = withSource ? `5rem ${TEMPLATE}` : TEMPLATE;
  return (
    <div className="stream-table" role="table" aria-label="Requests, newest first">
      <div className="stream-row stream-header" role="row" style={{ gridTemplateColumns: template }}>
        {(withSource ? ['source', ...COLUMNS] : COLUMNS).map((h) => (
          <div role="columnheader" key={h}>
            {h}
          </div>
        ))}
      </div>
      <div className="stream-scroll" role="rowgroup" ref={scrollRef} tabIndex={0} aria-label="Request stream, scroll with the arrow keys">
        <div className="matrix-virtual" role="presentation" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((v) => {
            const e = rows[v.index]!;
            const status = e.status ?? 0;
            return (
              <div
                key={v.index}
                role="row"
                className={`stream-row outcome-${e.outcome}`}
                data-outcome={e.outcome}
                data-source={e.source}
                style={{ transform: `translateY(${v.start}px)`, gridTemplateColumns: template }}
              >
                {withSource && (
                  <div role="cell" className="muted">
                    {e.source}
                  </div>
                )}
                <div role="cell" className="mono muted">
                  {formatTime(e.at)}
                </div>
                <div role="cell" className="ellipsis" title={e.userAgent}>
                  {e.userAgent.split(/[ /]/)[0] || '—'}
                </div>
                <div role="cell" className="mono ellipsis" title={`${e.method} ${e.path}`}>
                  <span className="method">{e.method}</span> {e.path}
                </div>
                <div role="cell" title={e.handling ?? undefined}>
                  {e.handling ? nameOf(e.handling) : '—'}
                </div>
                <div role="cell">
                  <span className="outcome-pill" style={{ borderColor: outcomeStyle[e.outcome].color }}>
                    <span className="swatch" style={{ background: outcomeStyle[e.outcome].color }} aria-hidden="true" />
                    {e.outcomeText}
                  </span>
                </div>
                <div role="cell" title={e.answeredBy}>
                  {nameOf(e.answeredBy)}
                </div>
                <div role="cell" className={`mono ${status >= 500 ? 'error-text' : status >= 400 ? 'warn-text' : ''}`}>
                  {e.status ?? '—'}
                </div>
                <div role="cell" className="mono muted">
                  {formatMs(e.latencyMs)}
                </div>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
