import { useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import PasswordField from '#web/components/PasswordField.tsx';
import AuthFrame from '#web/components/AuthFrame.tsx';
import { setTokens } from '#web/auth/tokens.ts';
import { postJson } from '#web/account/recovery.ts';
import { errorText } from '#web/account/messages.ts';
import { useFormSubmit } from '#web/account/useFormSubmit.ts';
import { useTranslation } from 'react-i18next';

interface SignInState {
  from?: string;
  message?: string;
}

/** Sign in with username or e-mail; afterwards back to where the guard sent the user from, or /home. */
export default function SignIn() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const state = (location.state ?? {}) as SignInState;
  const [identifier, setIdentifier] = useState('');
  const [password, setPassword] = useState('');
  const {
    alert: error,
    busy,
    submit,
  } = useFormSubmit(
    () => (identifier.trim() && password ? null : 'Please enter your username or email and your password.'),
    async () => {
      const res = await postJson('/api-node/login', { email: identifier.trim(), password });
      const data = res.data as { accessToken?: string; refreshToken?: string } | null;
      if (res.ok && data?.accessToken && data.refreshToken) {
        setTokens({ accessToken: data.accessToken, refreshToken: data.refreshToken });
        const from =
          state.from && state.from.startsWith('/') && !state.from.startsWith('/signin') ? state.from : '/home';
        navigate(from, { replace: true });
        return null;
      }
      if (res.status === 429) return errorText(res.data, 'Too many sign-in attempts. Please wait a minute.');
      return errorText(res.data, 'Invalid username/email or password.');
    },
  );

  return (
    <AuthFrame id="signin-title" title={t('Sign In')}>
      {state.message && !error && (
        <p className="alert alert-success" role="status">
          {t(state.message)}
        </p>
      )}
      {error && (
        <p className="alert" role="alert">
          {t(error)}
        </p>
      )}
      <form onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="signin-identifier">{t('Username or Email')}</label>
          <input
            id="signin-identifier"
            type="text"
            name="email"
            autoComplete="username"
            value={identifier}
            onChange={(e) => setIdentifier(e.target.value)}
          />
        </div>
        <PasswordField
          label={t('Password')}
          name="password"
          autoComplete="current-password"
          value={password}
          onChange={setPassword}
        />
        <p className="auth-aside">
          <Link to="/forgotpassword">{t('Forgot Password?')}</Link>
        </p>
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {t(busy ? 'Signing in...' : 'Sign In')}
        </button>
      </form>
      <p className="auth-switch">
        {t("Don't have an account?")} <Link to="/signup">{t('Sign Up')}</Link>
      </p>
    </AuthFrame>
  );
}
