import { it } from 'vitest';
import { createTlsMaterial, startHttpsUpstream } from '../../test/upstream-fixtures.js';
import { issueServerCertificate } from '../tls/certs.js';
import { ControlClient } from './control-client.js';
it('dbg', async () => {
  const tls = await createTlsMaterial();
  const mis = await startHttpsUpstream(tls, (_q, r) => r.writeHead(200).end('ok'), {
    cert: await issueServerCertificate(tls.ca, { hosts: ['elsewhere.invalid'] }),
  });
  const c = new ControlClient({ name: 'x', url: mis.url.replace('http:', 'https:'), ca: tls.ca.cert }, 2000, 500);
  const t = Date.now();
  try {
    const r = await c.get('/version');
    console.log(r.status);
  } catch (e) {
    console.log('ERR', Date.now() - t, (e as Error).message, (e as any).code, (e as any).cause?.code);
  }
  const t2 = Date.now();
  await c.close();
  console.log('closed in', Date.now() - t2);
  await mis.close();
}, 60000);
