import { useEffect, useState } from 'react';
import { apiJson } from '#web/api/client.ts';
import { getAccessToken } from '#web/auth/tokens.ts';
import '#web/account/account.css';
import { useTranslation } from 'react-i18next';

/** Calls the protected endpoint with the stored token and shows what came back. */
export default function TestToken() {
  const { t } = useTranslation();
  const [result, setResult] = useState<string | null>(() => (getAccessToken() ? null : 'No token found'));

  useEffect(() => {
    if (!getAccessToken()) return;
    let cancelled = false;
    apiJson<{ message?: string; error?: string }>('/api-node/protected')
      .then(({ ok, data }) => {
        if (cancelled) return;
        if (ok) setResult(`Success: ${data?.message ?? ''}`);
        else setResult(`Error: ${data?.error ?? 'Request failed'}`);
      })
      .catch((e: unknown) => !cancelled && setResult(`Error: ${e instanceof Error ? e.message : String(e)}`));
    return () => {
      cancelled = true;
    };
  }, []);

  return (
    <main className="page token-page">
      <h1>{t('Token Test')}</h1>
      <p className={result?.startsWith('Success') ? 'alert alert-success' : result ? 'alert' : undefined} role="status">
        {result ?? t('Checking token...')}
      </p>
    </main>
  );
}
