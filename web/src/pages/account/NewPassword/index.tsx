import { Link } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import '#web/account/account.css';

/** Shown after a signed-in password change. */
export default function NewPassword() {
  return (
    <Layout>
      <section className="card narrow-card success-card">
        <h1>Your password has been updated</h1>
        <p>Use your new password the next time you sign in.</p>
        <Link to="/signin" className="btn btn-primary">
          Sign-in
        </Link>
      </section>
    </Layout>
  );
}
