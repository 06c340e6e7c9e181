import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import RecoveryFrame from '#web/components/RecoveryFrame.tsx';
import { postJson, recovery } from '#web/account/recovery.ts';
import { errorText, MAX_RECOVERY_INPUT, MSG } from '#web/account/messages.ts';
import { useFormSubmit } from '#web/account/useFormSubmit.ts';
import { useTranslation } from 'react-i18next';

/** Step 1 of recovery: ask the server to mail a verification code, remember the address for step 2. */
export default function ForgotPassword() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [email, setEmail] = useState(() => recovery.email() ?? '');
  const address = email.trim();
  const { alert, busy, submit } = useFormSubmit(
    () => (address ? null : MSG.emailRequired),
    async () => {
      const res = await postJson('/api-node/forgot-password', { email: address });
      if (!res.ok) return errorText(res.data, 'Could not send the email. Please try again.');
      recovery.clear();
      recovery.setEmail(address);
      navigate('/verify');
      return null;
    },
  );

  return (
    <RecoveryFrame title={t('Forgot Password')}>
      <p className="auth-lead">
        {t('Enter the email address of your account and we will send you a verification code.')}
      </p>
      <form onSubmit={submit} noValidate>
        {alert && (
          <p className="alert" role="alert">
            {alert}
          </p>
        )}
        <label className="visually-hidden" htmlFor="forgot-email">
          {t('Email')}
        </label>
        <input
          id="forgot-email"
          type="email"
          placeholder={t('Enter your email')}
          autoComplete="email"
          maxLength={MAX_RECOVERY_INPUT}
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {t(busy ? 'Sending...' : 'Send Email')}
        </button>
      </form>
      <p className="auth-switch">
        {t('Remembered it?')} <Link to="/signin">{t('Sign In')}</Link>
      </p>
    </RecoveryFrame>
  );
}
