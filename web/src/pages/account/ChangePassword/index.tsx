import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import RecoveryFrame from '#web/components/RecoveryFrame.tsx';
import PasswordField from '#web/components/PasswordField.tsx';
import { postJson, recovery } from '#web/account/recovery.ts';
import { errorText, MAX_RECOVERY_INPUT, MIN_PASSWORD, MSG } from '#web/account/messages.ts';
import { useFormSubmit } from '#web/account/useFormSubmit.ts';
import { useTranslation } from 'react-i18next';

/** Step 3 of recovery: a new password, sent with the reset token from the verification step. */
export default function ChangePassword() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const { alert, busy, submit } = useFormSubmit(
    () => {
      if (!password || !confirm) return MSG.fieldBlank;
      if (password !== confirm) return MSG.mismatch;
      if (password.length < MIN_PASSWORD) return MSG.tooShort;
      return recovery.resetToken() ? null : MSG.sessionExpired;
    },
    async () => {
      const res = await postJson('/api-node/change-password', { newPassword: password }, recovery.resetToken() ?? '');
      if (!res.ok) return errorText(res.data, MSG.changeFailed);
      recovery.clear();
      navigate('/changepassword/success', { replace: true });
      return null;
    },
    MSG.changeFailed,
  );

  return (
    <RecoveryFrame title={t('Change Password')}>
      <p className="auth-lead">{t('Choose a new password of at least {{n}} characters.', { n: MIN_PASSWORD })}</p>
      <form onSubmit={submit} noValidate>
        {alert && (
          <p className="alert" role="alert">
            {alert}
          </p>
        )}
        {/* lets password managers file the new password under the right account */}
        <input type="email" autoComplete="username" value={recovery.email() ?? ''} readOnly hidden />
        <PasswordField
          label={t('New Password')}
          autoComplete="new-password"
          maxLength={MAX_RECOVERY_INPUT}
          value={password}
          onChange={setPassword}
        />
        <PasswordField
          label={t('Confirm Password')}
          autoComplete="new-password"
          maxLength={MAX_RECOVERY_INPUT}
          value={confirm}
          onChange={setConfirm}
        />
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {t(busy ? 'Saving...' : 'Change Password')}
        </button>
      </form>
      <p className="auth-switch">
        <Link to="/forgotpassword">{t('Start over')}</Link>
      </p>
    </RecoveryFrame>
  );
}
