import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import ConfirmDialog from '#web/components/ConfirmDialog.tsx';
import { apiJson } from '#web/api/client.ts';
import { useProfile } from '#web/account/profile.ts';
import { errorText, MSG } from '#web/account/messages.ts';
import '#web/account/account.css';

const FIELDS = [
  { name: 'name', label: 'Name', type: 'text', autoComplete: 'name' },
  { name: 'email', label: 'Email', type: 'email', autoComplete: 'email' },
  { name: 'phone', label: 'Phone', type: 'tel', autoComplete: 'tel' },
  { name: 'country', label: 'Country', type: 'text', autoComplete: 'country-name' },
] as const;

type Editable = Record<(typeof FIELDS)[number]['name'], string>;

/** Edit name, email, phone and country; Save asks for confirmation, success goes back one step. */
export default function ProfileEdit() {
  const navigate = useNavigate();
  const state = useProfile();
  const [values, setValues] = useState<Editable | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);

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
      };
      const res = await apiJson('/api-node/user/profile', { method: 'PUT', body: JSON.stringify(body) });
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

  return (
    <Layout>
      {state.status === 'loading' && <p className="page-loading">Loading profile...</p>}
      {state.status === 'error' && (
        <p className="alert" role="alert">
          {state.error}
        </p>
      )}
      {values && (
        <section className="card narrow-card" aria-labelledby="edit-title">
          <h1 id="edit-title">Edit Profile</h1>
          {message && (
            <p className="alert" role="alert">
              {message}
            </p>
          )}
          <form onSubmit={onSave} noValidate>
            {FIELDS.map((f) => (
              <div className="field" key={f.name}>
                <label htmlFor={`profile-${f.name}`}>{f.label}</label>
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
            <div className="form-actions">
              <button type="button" className="btn btn-secondary" onClick={() => navigate(-1)}>
                Back
              </button>
              <button type="submit" className="btn btn-primary" disabled={busy}>
                {busy ? 'Saving...' : 'Save'}
              </button>
            </div>
          </form>
        </section>
      )}
      <ConfirmDialog
        open={confirming}
        title="Confirm Changes"
        message="Are you sure you want to save these changes?"
        onCancel={() => setConfirming(false)}
        onConfirm={() => void onConfirm()}
      />
    </Layout>
  );
}
