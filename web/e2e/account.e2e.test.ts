import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, signInViaApi, startE2E, type E2E } from './harness.ts';
import { alertText, registerViaApi, signInViaForm } from './account-helpers.ts';

const path = (e2e: E2E) => new URL(e2e.page.url()).pathname;

describe('sign up, sign in, guard, navigation, sign out', () => {
  let e2e: E2E;
  beforeAll(async () => {
    e2e = await startE2E();
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it('signs up through the form, then signs in and lands on /home with the hero', async () => {
    const user = newUser('signup');
    const { page } = e2e;
    await page.goto(e2e.url('/signup'));
    await page.getByLabel('Username', { exact: true }).fill(user.username);
    await page.getByLabel('Email', { exact: true }).fill(user.email);
    await page.getByLabel('Organization', { exact: true }).fill(user.organization);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByLabel('Confirm Password', { exact: true }).fill(user.password);
    // each password field has its own show/hide toggle
    await page.getByRole('button', { name: 'Show confirm password' }).click();
    expect(await page.getByLabel('Confirm Password', { exact: true }).getAttribute('type')).toBe('text');
    expect(await page.getByLabel('Password', { exact: true }).getAttribute('type')).toBe('password');
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click();

    await page.waitForURL('**/signin');
    expect(await page.getByRole('status').innerText()).toBe('Account created. Please sign in.');
    await signInViaForm(e2e, user.email, user.password);
    await page.waitForURL('**/home');
    await page.getByRole('heading', { level: 1, name: 'Welcome to Mango Bruise Tracker!' }).waitFor();
    const tokens = await page.evaluate(() => [
      localStorage.getItem('accessToken'),
      localStorage.getItem('refreshToken'),
    ]);
    expect(tokens[0]).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(tokens[1]).toBeTruthy();
  });

  it('shows the server errors on sign up (taken username) and the local checks', async () => {
    const user = newUser('taken');
    await registerViaApi(e2e, user);
    const { page } = e2e;
    await page.goto(e2e.url('/signup'));
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click();
    expect(await alertText(e2e)).toBe(
      'The following fields cannot be blank: Username, Email, Organization, Password, Confirm Password',
    );
    await page.getByLabel('Username', { exact: true }).fill(user.username);
    await page.getByLabel('Email', { exact: true }).fill(`other_${user.email}`);
    await page.getByLabel('Organization', { exact: true }).fill('Other Org');
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByLabel('Confirm Password', { exact: true }).fill('short');
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click();
    expect(await alertText(e2e)).toBe('Password must be at least 8 characters');
    await page.getByLabel('Password', { exact: true }).fill('long-enough-1');
    await page.getByLabel('Confirm Password', { exact: true }).fill('long-enough-2');
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click();
    expect(await alertText(e2e)).toBe('Passwords do not match');
    await page.getByLabel('Confirm Password', { exact: true }).fill('long-enough-1');
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click();
    await page.getByText('Username is already taken').waitFor();
    expect(path(e2e)).toBe('/signup');
  });

  it('shows an error on a wrong password and stays on /signin', async () => {
    const user = newUser('wrongpw');
    await registerViaApi(e2e, user);
    const { page } = e2e;
    await page.goto(e2e.url('/signin'));
    await page.evaluate(() => localStorage.clear());
    await signInViaForm(e2e, user.username, 'not-the-password');
    expect(await alertText(e2e)).toBe('Invalid username/email or password');
    expect(path(e2e)).toBe('/signin');
    expect(await page.evaluate(() => localStorage.getItem('accessToken'))).toBeNull();
    // password visibility toggle
    await page.getByRole('button', { name: 'Show password' }).click();
    expect(await page.getByLabel('Password', { exact: true }).getAttribute('type')).toBe('text');
    await page.getByRole('button', { name: 'Hide password' }).click();
    expect(await page.getByLabel('Password', { exact: true }).getAttribute('type')).toBe('password');
  });

  it('links to Sign Up and Forgot Password from /signin', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/signin'));
    await page.getByRole('link', { name: 'Forgot Password?' }).click();
    await page.waitForURL('**/forgotpassword');
    await page.goto(e2e.url('/signin'));
    await page.getByRole('link', { name: 'Sign Up' }).click();
    await page.waitForURL('**/signup');
  });

  it('sends a visitor from a protected page to /signin and back there after signing in', async () => {
    const user = newUser('guard');
    await registerViaApi(e2e, user);
    const { page } = e2e;
    await page.goto(e2e.url('/aboutus'));
    await page.evaluate(() => localStorage.clear());
    await page.goto(e2e.url('/profile'));
    await page.waitForURL('**/signin');
    await signInViaForm(e2e, user.username, user.password);
    await page.waitForURL('**/profile');
    await page.locator('dd[data-field="organization"]').getByText(user.organization).waitFor();
  });

  it('navigation: logo to /home, current path highlighted, avatar menu opens and closes', async () => {
    await signInViaApi(e2e);
    const { page } = e2e;
    await page.goto(e2e.url('/dashboard'));
    await page.getByRole('link', { name: 'Mango Bruise Tracker home' }).click();
    await page.waitForURL('**/home');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await page.getByRole('heading', { name: 'Welcome to Mango Bruise Tracker!' }).waitFor();
    expect(await nav.locator('[aria-current="page"]').allInnerTexts()).toEqual(['Home']);
    await nav.getByRole('link', { name: 'About Us' }).click();
    await page.getByRole('heading', { name: 'About Mango Bruise Tracker' }).waitFor();
    expect(await nav.locator('[aria-current="page"]').allInnerTexts()).toEqual(['About Us']);
    expect(await nav.locator('.active').allInnerTexts()).toEqual(['About Us']);

    const avatar = page.getByRole('button', { name: 'Profile menu' });
    expect(await page.getByRole('menu').count()).toBe(0);
    await avatar.click();
    expect(await page.getByRole('menuitem').allInnerTexts()).toEqual(['View Profile', 'Sign Out']);
    await avatar.click();
    expect(await page.getByRole('menu').count()).toBe(0);
    await avatar.click();
    await page.getByRole('menuitem', { name: 'View Profile' }).click();
    await page.waitForURL('**/profile');
  });

  it('signs out from the avatar menu: tokens removed, protected pages closed again', async () => {
    const { user, tokens } = await signInViaApi(e2e);
    const { page } = e2e;
    await page.goto(e2e.url('/home'));
    await page.getByRole('button', { name: 'Profile menu' }).click();
    await page.getByRole('menuitem', { name: 'Sign Out' }).click();
    // /logout goes to /, which redirects to /home, which the guard sends to /signin
    await page.waitForURL('**/signin');
    expect(
      await page.evaluate(() => [localStorage.getItem('accessToken'), localStorage.getItem('refreshToken')]),
    ).toEqual([null, null]);
    // the refresh token was revoked on the server
    const refresh = await fetch(e2e.url('/api-node/refresh'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ refreshToken: tokens.refreshToken }),
    });
    expect(refresh.status).toBe(401);
    // the access token ended with its sign-in
    const stale = await fetch(e2e.url('/api-node/user/history'), {
      headers: { Authorization: `Bearer ${tokens.accessToken}` },
    });
    expect(stale.status).toBe(401);
    // and the sign-out was logged as an action (seen from a new sign-in)
    const login = await fetch(e2e.url('/api-node/login'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: user.username, password: user.password }),
    });
    const { accessToken } = (await login.json()) as { accessToken: string };
    const history = await fetch(e2e.url('/api-node/user/history'), {
      headers: { Authorization: `Bearer ${accessToken}` },
    });
    const rows = (await history.json()) as { operation_type: string }[];
    expect(rows.map((r) => r.operation_type)).toContain('Logout');
  });
});

describe('/testtoken', () => {
  let e2e: E2E;
  beforeAll(async () => {
    e2e = await startE2E();
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it("says 'No token found' without a token", async () => {
    await e2e.page.goto(e2e.url('/testtoken'));
    await e2e.page.evaluate(() => localStorage.clear());
    await e2e.page.goto(e2e.url('/testtoken'));
    expect(await e2e.page.getByRole('status').innerText()).toBe('No token found');
  });

  it("shows 'Success: {message}' with a valid token", async () => {
    const { user } = await signInViaApi(e2e);
    await e2e.page.goto(e2e.url('/testtoken'));
    await e2e.page.getByText(/^Success: /).waitFor();
    expect(await e2e.page.getByRole('status').innerText()).toBe(`Success: Hello ${user.username}, your token is valid`);
  });

  it("shows 'Error: {error}' with a bad token", async () => {
    await e2e.page.goto(e2e.url('/aboutus'));
    await e2e.page.evaluate(() => {
      localStorage.setItem('accessToken', 'not.a.token');
      localStorage.removeItem('refreshToken');
    });
    await e2e.page.goto(e2e.url('/testtoken'));
    await e2e.page.getByText(/^Error: /).waitFor();
    expect(await e2e.page.getByRole('status').innerText()).toBe('Error: Invalid or expired token');
  });
});
