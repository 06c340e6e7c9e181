import { useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import PasswordField from '#web/components/PasswordField.tsx';
import { setTokens } from '#web/auth/tokens.ts';
import { postJson } from '#web/account/recovery.ts';
import { errorText } from '#web/account/messages.ts';
import '#web/components/shell.css';
import '#web/account/account.css';

interface SignInState {
  from?: string;
  message?: string;
}

/** Sign in with username or e-mail; afterwards back to where the guard sent the user from, or /home. */
export default function SignIn() {
  const navigate = useNavigate();
  const location = useLocation();
  const state = (location.state ?? {}) as SignInState;
  const [identifier, setIdentifier] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!identifier.trim() || !password) {
      setError('Please enter your username or email and your password.');
      return;
    }
    setBusy(true);
    setError('');
    try {
      const res = await postJson('/api-node/login', { email: identifier.trim(), password });
      const data = res.data as { accessToken?: string; refreshToken?: string } | null;
      if (res.ok && data?.accessToken && data.refreshToken) {
        setTokens({ accessToken: data.accessToken, refreshToken: data.refreshToken });
        const from =
          state.from && state.from.startsWith('/') && !state.from.startsWith('/signin') ? state.from : '/home';
        navigate(from, { replace: true });
        return;
      }
      if (res.status === 429) setError(errorText(res.data, 'Too many sign-in attempts. Please wait a minute.'));
      else setError(errorText(res.data, 'Invalid username/email or password.'));
    } catch {
      setError('Could not reach the server. Please try again.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="auth-page">
      <main className="auth-main">
        <Link to="/aboutus" className="logo">
          <span className="logo-mark" aria-hidden="true" />
          Mango Bruise Tracker
        </Link>
        <section className="auth-card card" aria-labelledby="signin-title">
          <h1 id="signin-title">Sign In</h1>
          {state.message && !error && (
            <p className="alert alert-success" role="status">
              {state.message}
            </p>
          )}
          {error && (
            <p className="alert" role="alert">
              {error}
            </p>
          )}
          <form onSubmit={submit} noValidate>
            <div className="field">
              <label htmlFor="signin-identifier">Username or Email</label>
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
              label="Password"
              name="password"
              autoComplete="current-password"
              value={password}
              onChange={setPassword}
            />
            <p className="auth-aside">
              <Link to="/forgotpassword">Forgot Password?</Link>
            </p>
            <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
              {busy ? 'Signing in...' : 'Sign In'}
            </button>
          </form>
          <p className="auth-switch">
            Don&apos;t have an account? <Link to="/signup">Sign Up</Link>
          </p>
        </section>
      </main>
    </div>
  );
}
