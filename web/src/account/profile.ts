import { useEffect, useState } from 'react';
import { apiJson } from '../api/client.ts';
import { errorText, MSG } from './messages.ts';

export interface UserProfile {
  name: string;
  email: string;
  phone: string;
  country: string;
  organization: string;
  username?: string;
}

export type ProfileState =
  { status: 'loading' } | { status: 'error'; error: string } | { status: 'loaded'; profile: UserProfile };

/** GET /api-node/user/profile once; the server's error text is kept for the error state. */
export function useProfile(): ProfileState {
  const [state, setState] = useState<ProfileState>({ status: 'loading' });
  useEffect(() => {
    let cancelled = false;
    apiJson<UserProfile & { error?: string }>('/api-node/user/profile')
      .then(({ ok, data }) => {
        if (cancelled) return;
        if (ok && data) setState({ status: 'loaded', profile: data });
        else {
          console.error(MSG.fetchFailed, data);
          setState({ status: 'error', error: errorText(data, MSG.fetchFailed) });
        }
      })
      .catch((e: unknown) => {
        console.error(MSG.fetchFailed, e);
        if (!cancelled) setState({ status: 'error', error: MSG.fetchFailed });
      });
    return () => {
      cancelled = true;
    };
  }, []);
  return state;
}
