import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import RecoveryFrame from '#web/components/RecoveryFrame.tsx';
import { postJson, recovery } from '#web/account/recovery.ts';
import { errorText, MAX_RECOVERY_INPUT, MSG } from '#web/account/messages.ts';

/** Step 2 of recovery: the server checks the code and hands back a short-lived reset token. */
export default function Verify() {
  const navigate = useNavigate();
  const email = recovery.email();
  const [code, setCode] = useState('');
  const [alert, setAlert] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const value = code.trim();
    if (!value) return setAlert(MSG.codeRequired);
    if (!email) return setAlert('Your recovery session has expired. Please request a new code.');
    setBusy(true);
    try {
      const res = await postJson('/api-node/verify-code', { email, code: value });
      const token = (res.data as { resetToken?: string } | null)?.resetToken;
      if (res.ok && token) {
        setAlert('');
        recovery.setResetToken(token);
        navigate('/changepassword');
        return;
      }
      setAlert(res.status === 400 ? MSG.codeIncorrect : errorText(res.data, MSG.codeIncorrect));
    } catch {
      setAlert('Could not reach the server. Please try again.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <RecoveryFrame title="Verification">
      <p className="auth-lead">
        {email ? (
          <>
            We sent a verification code to <strong>{email}</strong>.
          </>
        ) : (
          'Enter the verification code from your email.'
        )}
      </p>
      <form onSubmit={submit} noValidate>
        {alert && (
          <p className="alert" role="alert">
            {alert}
          </p>
        )}
        <label className="visually-hidden" htmlFor="verify-code">
          Verification code
        </label>
        <input
          id="verify-code"
          type="text"
          inputMode="numeric"
          autoComplete="one-time-code"
          placeholder="Enter your verification code"
          maxLength={MAX_RECOVERY_INPUT}
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {busy ? 'Verifying...' : 'Verify'}
        </button>
      </form>
      <p className="auth-switch">
        No code? <Link to="/forgotpassword">Send it again</Link>
      </p>
    </RecoveryFrame>
  );
}
