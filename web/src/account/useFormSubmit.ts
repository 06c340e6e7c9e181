/** The submit of an account form: checks first, then one request while busy; its message shows as the alert. */
import { useState, type FormEvent } from 'react';
import { MSG } from './messages.ts';

/**
 * `check` returns the message for invalid input (nothing is sent) or null; `send` makes the request
 * and returns the message to show, or null (after navigating away, say). A request that throws shows
 * `unreachable`.
 */
export function useFormSubmit(
  check: () => string | null,
  send: () => Promise<string | null>,
  unreachable: string = MSG.unreachable,
) {
  const [alert, setAlert] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const invalid = check();
    if (invalid) return setAlert(invalid);
    setBusy(true);
    setAlert('');
    try {
      setAlert((await send()) ?? '');
    } catch {
      setAlert(unreachable);
    } finally {
      setBusy(false);
    }
  };
  return { alert, busy, submit };
}
