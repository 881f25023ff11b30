// Each apiserver with its release and health.
import { shownName, type Overview } from '../../../proxy-core/contract/index.js';
import { shortRelease } from '../../shared/ui/format.js';
import { HealthBadge } from '../../shared/ui/states.js';

export function ServerStrip({ overview }: { overview: Overview }) {
  return (
    <ul className="server-strip" aria-label="Apiservers">
      {overview.servers.map((s) => (
        <li key={s.name} className="server-chip">
          <span className="server-name" title={shownName(s) === s.name ? undefined : s.name}>
            {shownName(s)}
          </span>
          <span className="release" title={s.gitVersion}>
            {shortRelease(s.gitVersion)}
          </span>
          <HealthBadge health={s.health} />
        </li>
      ))}
    </ul>
  );
}
