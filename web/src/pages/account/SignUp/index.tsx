import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import PasswordField from '#web/components/PasswordField.tsx';
import AuthFrame from '#web/components/AuthFrame.tsx';
import { postJson } from '#web/account/recovery.ts';
import { errorText, MIN_PASSWORD, MSG } from '#web/account/messages.ts';
import { useFormSubmit } from '#web/account/useFormSubmit.ts';
import { useTranslation } from 'react-i18next';

const FIELDS = [
  { name: 'username', label: 'Username', type: 'text', autoComplete: 'username' },
  { name: 'email', label: 'Email', type: 'email', autoComplete: 'email' },
  { name: 'organization', label: 'Organization', type: 'text', autoComplete: 'organization' },
] as const;

type FieldName = (typeof FIELDS)[number]['name'];

/** Create an account; the server's errors are shown as they come. Success goes to sign in. */
export default function SignUp() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [values, setValues] = useState<Record<FieldName, string>>({ username: '', email: '', organization: '' });
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const {
    alert: error,
    busy,
    submit,
  } = useFormSubmit(
    () => {
      const blank: string[] = FIELDS.filter((f) => !values[f.name].trim()).map((f) => f.label);
      if (!password) blank.push('Password');
      if (!confirm) blank.push('Confirm Password');
      if (blank.length > 0) return MSG.blankFields + blank.join(', ');
      if (password.length < MIN_PASSWORD) return MSG.tooShort;
      return password !== confirm ? MSG.mismatch : null;
    },
    async () => {
      const res = await postJson('/api-node/register', {
        username: values.username.trim(),
        email: values.email.trim(),
        organization: values.organization.trim(),
        password,
      });
      if (res.ok) {
        navigate('/signin', { state: { message: 'Account created. Please sign in.' } });
        return null;
      }
      return errorText(res.data, 'Registration failed. Please try again.');
    },
  );

  return (
    <AuthFrame id="signup-title" title={t('Sign Up')}>
      {error && (
        <p className="alert" role="alert">
          {t(error)}
        </p>
      )}
      <form onSubmit={submit} noValidate>
        {FIELDS.map((f) => (
          <div className="field" key={f.name}>
            <label htmlFor={`signup-${f.name}`}>{t(f.label)}</label>
            <input
              id={`signup-${f.name}`}
              name={f.name}
              type={f.type}
              autoComplete={f.autoComplete}
              value={values[f.name]}
              onChange={(e) => setValues((v) => ({ ...v, [f.name]: e.target.value }))}
            />
          </div>
        ))}
        <PasswordField
          label={t('Password')}
          name="password"
          autoComplete="new-password"
          value={password}
          onChange={setPassword}
        />
        <PasswordField
          label={t('Confirm Password')}
          name="confirmPassword"
          autoComplete="new-password"
          value={confirm}
          onChange={setConfirm}
        />
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {t(busy ? 'Creating account...' : 'Sign Up')}
        </button>
      </form>
      <p className="auth-switch">
        {t('Already have an account?')} <Link to="/signin">{t('Sign In')}</Link>
      </p>
    </AuthFrame>
  );
}
