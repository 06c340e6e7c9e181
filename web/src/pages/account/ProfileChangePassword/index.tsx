import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import PasswordField from '#web/components/PasswordField.tsx';
import { apiJson } from '#web/api/client.ts';
import { errorText, MIN_PASSWORD, MSG } from '#web/account/messages.ts';
import '#web/account/account.css';
import { useTranslation } from 'react-i18next';

/** Signed-in password change: current, new and confirm; the server checks the current one. */
export default function ProfileChangePassword() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!current || !next || !confirm) return setMessage(MSG.fieldBlank);
    if (next.length < MIN_PASSWORD) return setMessage(MSG.tooShort);
    if (next !== confirm) return setMessage(MSG.mismatch);
    setBusy(true);
    setMessage('');
    try {
      const res = await apiJson('/api-node/change-password', {
        method: 'POST',
        body: JSON.stringify({ currentPassword: current, newPassword: next }),
      });
      if (res.ok) {
        navigate('/newpassword', { replace: true });
        return;
      }
      setMessage(errorText(res.data, MSG.changeFailed));
    } catch (err) {
      console.error(MSG.changeFailed, err);
      setMessage(MSG.changeFailed);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Layout>
      <section className="card narrow-card" aria-labelledby="pw-title">
        <h1 id="pw-title">{t('Change Password')}</h1>
        {message && (
          <p className="alert" role="alert">
            {t(message)}
          </p>
        )}
        <form onSubmit={submit} noValidate>
          <PasswordField
            label={t('Current Password')}
            autoComplete="current-password"
            value={current}
            onChange={setCurrent}
          />
          <PasswordField label={t('New Password')} autoComplete="new-password" value={next} onChange={setNext} />
          <PasswordField
            label={t('Confirm Password')}
            autoComplete="new-password"
            value={confirm}
            onChange={setConfirm}
          />
          <div className="form-actions">
            <button type="button" className="btn btn-secondary" onClick={() => navigate('/profile')}>
              {t('Cancel')}
            </button>
            <button type="submit" className="btn btn-primary" disabled={busy}>
              {t(busy ? 'Saving...' : 'Save Password')}
            </button>
          </div>
        </form>
      </section>
    </Layout>
  );
}
