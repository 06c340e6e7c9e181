import { useEffect, useState } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { getAccessToken, getRefreshToken, tokenExpiry } from '../auth/tokens.ts';
import { refreshTokens } from '../api/client.ts';
import { useTranslation } from 'react-i18next';

type State = 'checking' | 'ok' | 'denied';

function initialState(): State {
  const access = getAccessToken();
  const exp = access ? tokenExpiry(access) : null;
  if (access && exp !== null && exp > Date.now() + 5_000) return 'ok';
  return getRefreshToken() ? 'checking' : 'denied';
}

/** No valid token: go to /signin, remembering where the user was going (state.from). */
export default function ProtectedRoute() {
  const { t } = useTranslation();
  const location = useLocation();
  const [state, setState] = useState<State>(initialState);

  useEffect(() => {
    if (state !== 'checking') return;
    let cancelled = false;
    refreshTokens().then((ok) => !cancelled && setState(ok ? 'ok' : 'denied'));
    return () => {
      cancelled = true;
    };
  }, [state]);

  if (state === 'checking') return <div className="page-loading">{t('Loading...')}</div>;
  if (state === 'denied') {
    return <Navigate to="/signin" replace state={{ from: location.pathname + location.search }} />;
  }
  return <Outlet />;
}
