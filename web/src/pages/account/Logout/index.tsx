import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router-dom';
import { logAction } from '#web/api/client.ts';
import { clearTokens, getRefreshToken } from '#web/auth/tokens.ts';
import { useTranslation } from 'react-i18next';

/** Logs the 'Logout' action, revokes the refresh token, forgets both tokens and goes to /. */
export default function Logout() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void (async () => {
      const refreshToken = getRefreshToken();
      if (refreshToken) {
        await logAction('Logout');
        try {
          await fetch('/api-node/logout', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ refreshToken: getRefreshToken() ?? refreshToken }),
          });
        } catch (e) {
          console.error('Logout request failed', e);
        }
      }
      clearTokens();
      navigate('/', { replace: true });
    })();
  }, [navigate]);

  return <div className="page-loading">{t('Signing out...')}</div>;
}
