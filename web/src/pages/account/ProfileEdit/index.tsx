import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import ConfirmDialog from '#web/components/ConfirmDialog.tsx';
import { apiJson } from '#web/api/client.ts';
import { useProfile } from '#web/account/profile.ts';
import { errorText, MSG } from '#web/account/messages.ts';
import '#web/account/account.css';
import { useTranslation } from 'react-i18next';

const FIELDS = [
  { name: 'name', label: 'Name', type: 'text', autoComplete: 'name' },
  { name: 'email', label: 'Email', type: 'email', autoComplete: 'email' },
  { name: 'phone', label: 'Phone', type: 'tel', autoComplete: 'tel' },
  { name: 'country', label: 'Country', type: 'text', autoComplete: 'country-name' },
] as const;

type Editable = Record<(typeof FIELDS)[number]['name'], string>;

/** Edit name, email, phone and country; Save asks for confirmation, success goes back one step. */
export default function ProfileEdit() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const state = useProfile();
  const [values, setValues] = useState<Editable | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  // A new e-mail needs the current password, then the code the server mails to the new address.
  const [currentPassword, setCurrentPassword] = useState('');
  const [pendingEmail, setPendingEmail] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const original = state.status === 'loaded' ? (state.profile.email ?? '') : '';
  const emailChanged = values !== null && values.email.trim().toLowerCase() !== original.trim().toLowerCase();

  useEffect(() => {
    if (state.status === 'loaded' && values === null) {
      const p = state.profile;
      setValues({ name: p.name ?? '', email: p.email ?? '', phone: p.phone ?? '', country: p.country ?? '' });
    }
  }, [state, values]);

  const onSave = (e: FormEvent) => {
    e.preventDefault();
    if (!values) return;
    const blank = FIELDS.filter((f) => !values[f.name].trim()).map((f) => f.name);
    if (blank.length > 0) return setMessage(MSG.blankFields + blank.join(', '));
    setMessage('');
    setConfirming(true);
  };

  const onConfirm = async () => {
    if (!values) return;
    setConfirming(false);
    setBusy(true);
    try {
      const body = {
        name: values.name.trim(),
        email: values.email.trim(),
        phone: values.phone.trim(),
        country: values.country.trim(),
        ...(emailChanged ? { currentPassword } : {}),
      };
      const res = await apiJson<{ pendingEmail?: string; message?: string }>('/api-node/user/profile', {
        method: 'PUT',
        body: JSON.stringify(body),
      });
      if (res.ok && res.data?.pendingEmail) {
        setPendingEmail(res.data.pendingEmail);
        setMessage(res.data.message ?? '');
        return;
      }
      if (res.ok) {
        navigate(-1);
        return;
      }
      setMessage(errorText(res.data, MSG.updateFailed));
    } catch (e) {
      console.error(MSG.updateFailed, e);
      setMessage(MSG.updateFailed);
    } finally {
      setBusy(false);
    }
  };

  const onConfirmEmail = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      const res = await apiJson('/api-node/user/email/confirm', {
        method: 'POST',
        body: JSON.stringify({ code: code.trim() }),
      });
      if (res.ok) {
        navigate(-1);
        return;
      }
      setMessage(errorText(res.data, MSG.updateFailed));
    } catch (err) {
      console.error(MSG.updateFailed, err);
      setMessage(MSG.updateFailed);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Layout>
      {state.status === 'loading' && <p className="page-loading">{t('Loading profile...')}</p>}
      {state.status === 'error' && (
        <p className="alert" role="alert">
          {state.error}
        </p>
      )}
      {values && (
        <section className="card narrow-card" aria-labelledby="edit-title">
          <h1 id="edit-title">{t('Edit Profile')}</h1>
          {message && (
            <p className="alert" role="alert">
              {message.startsWith(MSG.blankFields)
                ? t(MSG.blankFields) +
                  message
                    .slice(MSG.blankFields.length)
                    .split(', ')
                    .map((n) => t(n))
                    .join(', ')
                : t(message)}
            </p>
          )}
          {pendingEmail !== null && (
            <form onSubmit={(e) => void onConfirmEmail(e)} noValidate>
              <div className="field">
                <label htmlFor="profile-email-code">Verification code sent to {pendingEmail}</label>
                <input
                  id="profile-email-code"
                  name="code"
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  value={code}
                  onChange={(e) => setCode(e.target.value)}
                />
              </div>
              <div className="form-actions">
                <button type="submit" className="btn btn-primary" disabled={busy || !code.trim()}>
                  {t('Confirm Email')}
                </button>
              </div>
            </form>
          )}
          <form onSubmit={onSave} noValidate hidden={pendingEmail !== null}>
            {FIELDS.map((f) => (
              <div className="field" key={f.name}>
                <label htmlFor={`profile-${f.name}`}>{t(f.label)}</label>
                <input
                  id={`profile-${f.name}`}
                  name={f.name}
                  type={f.type}
                  autoComplete={f.autoComplete}
                  value={values[f.name]}
                  onChange={(e) => setValues((v) => (v ? { ...v, [f.name]: e.target.value } : v))}
                />
              </div>
            ))}
            {emailChanged && (
              <div className="field">
                <label htmlFor="profile-current-password">{t('Current Password')}</label>
                <input
                  id="profile-current-password"
                  name="currentPassword"
                  type="password"
                  autoComplete="current-password"
                  value={currentPassword}
                  onChange={(e) => setCurrentPassword(e.target.value)}
                />
              </div>
            )}
            <div className="form-actions">
              <button type="button" className="btn btn-secondary" onClick={() => navigate(-1)}>
                {t('Back')}
              </button>
              <button type="submit" className="btn btn-primary" disabled={busy}>
                {t(busy ? 'Saving...' : 'Save')}
              </button>
            </div>
          </form>
        </section>
      )}
      <ConfirmDialog
        open={confirming}
        title={t('Confirm Changes')}
        message={t('Are you sure you want to save these changes?')}
        onCancel={() => setConfirming(false)}
        onConfirm={() => void onConfirm()}
      />
    </Layout>
  );
}
