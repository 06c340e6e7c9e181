/** /apikeys: partner API keys for the embeddable widget and the bruise API (create, copy once, list, revoke). */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import TableHead from '#web/components/TableHead.tsx';
import ConfirmDialog from '#web/components/ConfirmDialog.tsx';
import { apiJson } from '#web/api/client.ts';
import { API_KEYS_ENDPOINT as ENDPOINT, errorOf, parseOrigins, type ApiKey } from './keys.ts';
import '../../tool-pages.css';
import './api-keys.css';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

const KEY_COLUMNS = [
  { label: 'Name' },
  { label: 'Key' },
  { label: 'Allowed origins' },
  { label: 'Per minute', numeric: true },
  { label: 'Created' },
  { label: 'Last used' },
  { label: 'Status' },
  { label: 'Actions', hidden: true },
];

export default function ApiKeys() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [loadError, setLoadError] = useState('');
  const [name, setName] = useState('');
  const [origins, setOrigins] = useState('');
  const [kind, setKind] = useState<ApiKey['kind']>('browser');
  const [rate, setRate] = useState('60');
  const [formError, setFormError] = useState('');
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);

  const load = useCallback(async () => {
    const res = await apiJson<ApiKey[]>(ENDPOINT);
    if (res.ok && Array.isArray(res.data)) {
      setKeys(res.data);
      setLoadError('');
    } else setLoadError(errorOf(res.data, 'Could not load your API keys.'));
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  const onCreate = async (e: FormEvent) => {
    e.preventDefault();
    setFormError('');
    const rateLimitPerMinute = Number(rate);
    if (!name.trim()) return setFormError('Give the key a name.');
    if (!Number.isInteger(rateLimitPerMinute) || rateLimitPerMinute < 1 || rateLimitPerMinute > 10_000) {
      return setFormError('The rate limit is a whole number of requests per minute, 1 to 10000.');
    }
    setCreating(true);
    try {
      const res = await apiJson<ApiKey & { key: string }>(ENDPOINT, {
        method: 'POST',
        body: JSON.stringify({
          name: name.trim(),
          kind,
          allowedOrigins: kind === 'browser' ? parseOrigins(origins) : [],
          rateLimitPerMinute,
        }),
      });
      if (!res.ok) return setFormError(errorOf(res.data, `Could not create the key (status ${res.status}).`));
      setCreated({ name: res.data.name, key: res.data.key });
      setCopied(false);
      setName('');
      setOrigins('');
      setKind('browser');
      setRate('60');
      await load();
    } finally {
      setCreating(false);
    }
  };

  const onCopy = async () => {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied(true);
    } catch {
      // Clipboard refused (permissions, insecure context): select the text for a manual copy.
      const node = document.getElementById('new-key-value');
      if (node) window.getSelection()?.selectAllChildren(node);
    }
  };

  const onRevoke = async () => {
    const key = revoking;
    setRevoking(null);
    if (!key) return;
    const res = await apiJson(`${ENDPOINT}/${key.id}`, { method: 'DELETE' });
    if (!res.ok) setLoadError(errorOf(res.data, 'Could not revoke the key.'));
    await load();
  };

  return (
    <Layout className="api-keys-page">
      <section className="tool-page">
        <h1>API keys</h1>
        <p className="tool-intro">
          Partner keys let another website use the bruise API and the embeddable widget. Calls from a browser are
          accepted only from the key&apos;s allowed origins, up to its rate limit. See the{' '}
          <Link to="/api-docs">API reference</Link>.
        </p>

        {created && (
          <div className="card new-key" role="region" aria-labelledby="new-key-title">
            <h2 id="new-key-title">Key &ldquo;{created.name}&rdquo; created</h2>
            <p>Copy it now: it is shown only once and cannot be recovered.</p>
            <div className="key-row">
              <code id="new-key-value" data-testid="new-key">
                {created.key}
              </code>
              <button type="button" className="btn btn-primary btn-small" onClick={() => void onCopy()}>
                {copied ? 'Copied' : 'Copy'}
              </button>
            </div>
            <p className="visually-hidden" role="status" aria-live="polite">
              {copied ? 'Key copied to the clipboard' : ''}
            </p>
            <button type="button" className="btn-link" onClick={() => setCreated(null)}>
              Done, hide the key
            </button>
          </div>
        )}

        <form className="card key-form" onSubmit={(e) => void onCreate(e)} aria-labelledby="create-title" noValidate>
          <h2 id="create-title">Create a key</h2>
          <label htmlFor="key-name">Name</label>
          <input id="key-name" type="text" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />
          <label htmlFor="key-kind">Kind</label>
          <select
            id="key-kind"
            value={kind}
            aria-describedby="key-kind-hint"
            onChange={(e) => setKind(e.target.value as ApiKey['kind'])}
          >
            <option value="browser">Browser (web pages of the allowed origins)</option>
            <option value="server">Server (server-to-server, never from a web page)</option>
          </select>
          <p id="key-kind-hint" className="hint">
            A browser key works only from the pages of its allowed origins; a server key only from programs, never from
            a page. See the widget guide for what each protects.
          </p>
          {kind === 'browser' && (
            <>
              <label htmlFor="key-origins">Allowed origins</label>
              <textarea
                id="key-origins"
                rows={3}
                value={origins}
                placeholder="https://shop.example.com"
                aria-describedby="key-origins-hint"
                onChange={(e) => setOrigins(e.target.value)}
              />
              <p id="key-origins-hint" className="hint">
                One per line, scheme://host[:port].
              </p>
            </>
          )}
          <label htmlFor="key-rate">Rate limit (requests per minute)</label>
          <input
            id="key-rate"
            type="number"
            min={1}
            max={10000}
            value={rate}
            onChange={(e) => setRate(e.target.value)}
          />
          {formError && (
            <p className="alert" role="alert">
              {formError}
            </p>
          )}
          <div className="tool-actions">
            <button type="submit" className="btn btn-primary" disabled={creating}>
              {creating ? 'Creating...' : 'Create key'}
            </button>
          </div>
        </form>

        <div className="card">
          <h2>Your keys</h2>
          {loadError && (
            <p className="alert" role="alert">
              {loadError}
            </p>
          )}
          {keys === null && !loadError && <p className="tool-status">Loading...</p>}
          {keys?.length === 0 && <p className="empty-state">No API keys yet.</p>}
          {keys && keys.length > 0 && (
            <div className="table-wrap">
              <table className="results-table keys-table">
                <TableHead columns={KEY_COLUMNS} />
                <tbody>
                  {keys.map((k) => (
                    <tr key={k.id} className={k.revoked_at ? 'revoked' : undefined}>
                      <td>{k.name}</td>
                      <td>
                        <code>{k.prefix}…</code>
                      </td>
                      <td>
                        {k.kind === 'server'
                          ? 'server only'
                          : k.allowed_origins.length
                            ? k.allowed_origins.join(', ')
                            : 'no origin allowed'}
                      </td>
                      <td className="num">{k.rate_limit_per_minute}</td>
                      <td>{when(k.created_at)}</td>
                      <td>{when(k.last_used_at)}</td>
                      <td>{k.revoked_at ? `Revoked ${when(k.revoked_at)}` : 'Active'}</td>
                      <td>
                        {!k.revoked_at && (
                          <button
                            type="button"
                            className="btn btn-danger btn-small"
                            aria-label={`Revoke ${k.name}`}
                            onClick={() => setRevoking(k)}
                          >
                            Revoke
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </div>
      </section>
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke API key"
        message={`Revoke "${revoking?.name ?? ''}"? Sites using it stop working at once.`}
        confirmLabel="Revoke"
        onConfirm={() => void onRevoke()}
        onCancel={() => setRevoking(null)}
      />
    </Layout>
  );
}
