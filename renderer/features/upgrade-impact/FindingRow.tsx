// One finding of the upgrade-impact table: its impact, client, source, API, the requests per verb
// (with their minutes), and what happens to them.
import type { ImpactFinding, ImpactReport } from '../../../proxy-core/contract/index.js';
import { IMPACT_LABELS, SOURCE_LABELS, sourceOf } from './labels.js';
import { MinuteBars } from './MinuteBars.js';

export function FindingRow({ finding: f, report }: { finding: ImpactFinding; report: ImpactReport }) {
  return (
    <tr data-impact={f.impact} data-source={sourceOf(f, report)}>
      <td>
        <span className={`badge impact-${f.impact}`} title={IMPACT_LABELS[f.impact].help}>
          {IMPACT_LABELS[f.impact].label}
        </span>
      </td>
      <th scope="row" title={f.client.userAgent ? `user agent: ${f.client.userAgent}` : undefined}>
        {f.client.name}
        <div className="muted small">{f.client.identity}</div>
      </th>
      <td>
        <span className={`badge source-${sourceOf(f, report)}`} title={SOURCE_LABELS[sourceOf(f, report)].help}>
          {SOURCE_LABELS[sourceOf(f, report)].label}
        </span>
      </td>
      <td>
        <code>
          {f.group ? `${f.group}/` : ''}
          {f.version} {f.resource}
        </code>
      </td>
      <td className="num">
        {f.verbs.length === 0 ? (
          <span className="muted small" title={SOURCE_LABELS.metrics.help}>
            requested; not counted per client
          </span>
        ) : (
          <>
            {f.verbs.map((v) => (
              <div key={v.verb}>
                {v.verb} {v.count.toLocaleString()} <span className="muted">({formatRate(v.perMinute)})</span>
              </div>
            ))}
            <MinuteBars finding={f} report={report} />
          </>
        )}
      </td>
      <td className="impact-message">{f.message.slice(f.message.indexOf(': ') + 2)}</td>
    </tr>
  );
}

function formatRate(perMinute: number): string {
  return perMinute >= 10 ? `${Math.round(perMinute)}/min` : `${perMinute.toFixed(1)}/min`;
}
