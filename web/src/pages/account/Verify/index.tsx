import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import RecoveryFrame from '#web/components/RecoveryFrame.tsx';
import { postJson, recovery } from '#web/account/recovery.ts';
import { errorText, MAX_RECOVERY_INPUT, MSG } from '#web/account/messages.ts';
import { useFormSubmit } from '#web/account/useFormSubmit.ts';
import { useTranslation } from 'react-i18next';

/** Step 2 of recovery: the server checks the code and hands back a short-lived reset token. */
export default function Verify() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const email = recovery.email();
  const [code, setCode] = useState('');
  const value = code.trim();
  const { alert, busy, submit } = useFormSubmit(
    () => {
      if (!value) return MSG.codeRequired;
      return email ? null : MSG.sessionExpired;
    },
    async () => {
      const res = await postJson('/api-node/verify-code', { email, code: value });
      const token = (res.data as { resetToken?: string } | null)?.resetToken;
      if (res.ok && token) {
        recovery.setResetToken(token);
        navigate('/changepassword');
        return null;
      }
      return res.status === 400 ? MSG.codeIncorrect : errorText(res.data, MSG.codeIncorrect);
    },
  );

  return (
    <RecoveryFrame title={t('Verification')}>
      <p className="auth-lead">
        {email ? (
          <>
            {t('We sent a verification code to')} <strong>{email}</strong>.
          </>
        ) : (
          t('Enter the verification code from your email.')
        )}
      </p>
      <form onSubmit={submit} noValidate>
        {alert && (
          <p className="alert" role="alert">
            {alert}
          </p>
        )}
        <label className="visually-hidden" htmlFor="verify-code">
          {t('Verification code')}
        </label>
        <input
          id="verify-code"
          type="text"
          inputMode="numeric"
          autoComplete="one-time-code"
          placeholder={t('Enter your verification code')}
          maxLength={MAX_RECOVERY_INPUT}
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {t(busy ? 'Verifying...' : 'Verify')}
        </button>
      </form>
      <p className="auth-switch">
        {t('No code?')} <Link to="/forgotpassword">{t('Send it again')}</Link>
      </p>
    </RecoveryFrame>
  );
}
