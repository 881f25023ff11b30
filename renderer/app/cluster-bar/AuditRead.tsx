// The cluster source's inputs in the top bar: a read of audit log files under way as a progress bar
// with Cancel (a long read — a gigabyte of a server's log — takes a while), how it ended, the logs
// followed, and where the audit webhook receiver listens. The same in the desktop app and a browser.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Overview } from '../../../proxy-core/contract/index.js';
import { queryKeys, useCoreClient } from '../../shared/client-context.js';
import { useOffline } from '../../shared/view-mode.js';

export const auditReadQueryKey = ['audit-read'] as const;

const MIB = 1024 * 1024;
const mib = (bytes: number) => (bytes / MIB).toLocaleString(undefined, { maximumFractionDigits: 1 });

export function AuditRead({ overview }: { overview: Overview }) {
  const offline = useOffline();
  if (offline || !overview.cluster) return null;
  return <AuditReadLive initial={overview.cluster} />;
}

function AuditReadLive({ initial }: { initial: NonNullable<Overview['cluster']> }) {
  const client = useCoreClient();
  const queryClient = useQueryClient();
  // Asked twice a second while a read runs; the overview's own period otherwise.
  const query = useQuery({
    queryKey: auditReadQueryKey,
    queryFn: async () => (await client.getOverview()).cluster ?? null,
    initialData: initial,
    refetchInterval: (q) => (q.state.data?.read?.state === 'reading' ? 500 : 5_000),
  });
  const cancel = useMutation({
    mutationFn: () => client.cancelAuditRead(),
    onSuccess: (overview) => {
      queryClient.setQueryData(auditReadQueryKey, overview.cluster ?? null);
      queryClient.setQueryData(queryKeys.overview, overview);
    },
  });
  const cluster = query.data;
  const read = cluster?.read;
  const webhook = cluster?.webhook;
  if (!read && !webhook) return null;
  const fraction = read?.bytesTotal ? Math.min(1, read.bytesRead / read.bytesTotal) : null;
  const percent = fraction === null ? '' : `${Math.floor(fraction * 100)} %`;
  const files = read ? `${read.files.length} audit ${read.files.length === 1 ? 'log' : 'logs'}` : '';
  return (
    <div className="audit-read" role="group" aria-label="Audit logs read and audit events received">
      {read?.state === 'reading' && (
        <>
          <label className="audit-read-progress">
            <span>Reading {files}</span>
            <progress max={1} value={fraction ?? undefined} aria-valuetext={percent || 'size unknown'} />
          </label>
          <span className="muted small">
            {percent}
            {read.bytesTotal ? ` · ${mib(read.bytesRead)} of ${mib(read.bytesTotal)} MiB` : ''} · {read.requests.toLocaleString()} requests
          </span>
          <button type="button" className="btn" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
            Cancel
          </button>
        </>
      )}
      {read?.state === 'following' && <span className="muted small">Following {files}</span>}
      {read?.state === 'done' && (
        <span className="muted small">
          Read {files}: {read.requests.toLocaleString()} requests
        </span>
      )}
      {read?.state === 'cancelled' && (
        <span className="muted small" role="status">
          Read of {files} cancelled{fraction === null ? '' : ` at ${percent}`}: the {read.requests.toLocaleString()} requests read count
        </span>
      )}
      {webhook && (
        <span className="muted small" title="kube-apiserver --audit-webhook-config-file posts here">
          Receiving audit events on <code>{webhook.url}</code>
        </span>
      )}
      {cancel.isError && (
        <span className="error-text small" role="alert">
          Could not cancel: {(cancel.error as Error).message}
        </span>
      )}
    </div>
  );
}
