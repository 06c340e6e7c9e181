import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, startE2E, type E2E } from './harness.ts';
import { alertText, loginViaApi, readVerificationCode, registerViaApi, signInViaForm } from './account-helpers.ts';

const path = (e2e: E2E) => new URL(e2e.page.url()).pathname;

describe('password recovery', () => {
  let e2e: E2E;
  beforeAll(async () => {
    e2e = await startE2E();
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it('forgot password: empty (or blank) email is refused inline, the aurora is drawn', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/forgotpassword'));
    await page.getByRole('heading', { level: 1, name: 'Forgot Password' }).waitFor();
    await page.getByTestId('aurora').waitFor();
    await page.getByPlaceholder('Enter your email').fill('   ');
    await page.getByPlaceholder('Enter your email').press('Enter');
    expect(await alertText(e2e)).toBe('Please enter your email address.');
    expect(path(e2e)).toBe('/forgotpassword');
    // the logo goes to /
    expect(await page.getByRole('link', { name: 'Mango Bruise Tracker' }).getAttribute('href')).toBe('/');
  });

  it('the aurora moves, and stands still under prefers-reduced-motion: reduce', async () => {
    const { page } = e2e;
    const frame = () => page.getByTestId('aurora').evaluate((c) => (c as HTMLCanvasElement).toDataURL());
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    await page.goto(e2e.url('/verify'));
    await page.getByTestId('aurora').waitFor();
    await page.waitForTimeout(300);
    const a = await frame();
    await page.waitForTimeout(500);
    expect(await frame()).not.toBe(a);

    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.goto(e2e.url('/forgotpassword'));
    await page.getByTestId('aurora').waitFor();
    await page.waitForTimeout(300);
    const still = await frame();
    await page.waitForTimeout(500);
    expect(await frame()).toBe(still);
    await page.emulateMedia({ reducedMotion: 'no-preference' });
  });

  it('walks forgot -> code from the outbox -> verify (wrong, empty, right) -> new password -> sign in', async () => {
    const user = newUser('recover');
    await registerViaApi(e2e, user);
    const { page } = e2e;
    await page.goto(e2e.url('/forgotpassword'));
    await page.getByPlaceholder('Enter your email').fill(user.email);
    await page.getByRole('button', { name: 'Send Email' }).click();
    await page.waitForURL('**/verify');
    await page.getByRole('heading', { level: 1, name: 'Verification' }).waitFor();
    // the address is kept for this tab only, and no code is stored in the browser
    const stored = await page.evaluate(() => ({
      session: { ...sessionStorage },
      local: { ...localStorage },
    }));
    expect(Object.values(stored.session)).toContain(user.email);
    expect(JSON.stringify(stored)).not.toMatch(/\b\d{6}\b/);

    const code = await readVerificationCode(e2e, user.email);
    const wrong = code === '000000' ? '111111' : '000000';

    const input = page.getByPlaceholder('Enter your verification code');
    await input.press('Enter');
    expect(await alertText(e2e)).toBe('Please enter the verification code.');
    await input.fill(wrong);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('Incorrect verification code. Please try again.').waitFor();
    expect(path(e2e)).toBe('/verify');

    await input.fill(code);
    await input.press('Enter');
    await page.waitForURL('**/changepassword');
    const resetToken = await page.evaluate(() => sessionStorage.getItem('resetToken'));
    expect(resetToken).toBeTruthy();
    expect(await page.evaluate(() => localStorage.getItem('resetToken'))).toBeNull();

    const newPw = page.getByLabel('New Password', { exact: true });
    const confirm = page.getByLabel('Confirm Password', { exact: true });
    const submit = page.getByRole('button', { name: 'Change Password' });
    await newPw.fill('brand-new-pass');
    await submit.click();
    expect(await alertText(e2e)).toBe('The field cannot be blank');
    await confirm.fill('brand-new-pasX');
    await submit.click();
    expect(await alertText(e2e)).toBe('Passwords do not match');
    await newPw.fill('short');
    await confirm.fill('short');
    await confirm.press('Enter');
    expect(await alertText(e2e)).toBe('Password must be at least 8 characters');
    expect(await newPw.getAttribute('maxlength')).toBe('100');

    await newPw.fill('brand-new-pass');
    await confirm.fill('brand-new-pass');
    await submit.click();
    await page.waitForURL('**/changepassword/success');
    expect(await page.evaluate(() => [sessionStorage.getItem('resetToken'), sessionStorage.length])).toEqual([null, 0]);

    // the old password is gone, the new one works
    expect((await loginViaApi(e2e, user.username, user.password)).status).toBe(401);
    await page.getByRole('link', { name: 'Sign-in' }).click();
    await page.waitForURL('**/signin');
    await signInViaForm(e2e, user.email, 'brand-new-pass');
    await page.getByRole('heading', { name: 'Welcome to Mango Bruise Tracker!' }).waitFor();
    expect(path(e2e)).toBe('/home');
  });

  it('a used reset token cannot change the password again', async () => {
    const user = newUser('reuse');
    await registerViaApi(e2e, user);
    const { page } = e2e;
    await page.goto(e2e.url('/forgotpassword'));
    await page.getByPlaceholder('Enter your email').fill(user.email);
    await page.getByRole('button', { name: 'Send Email' }).click();
    await page.waitForURL('**/verify');
    await page.getByPlaceholder('Enter your verification code').fill(await readVerificationCode(e2e, user.email));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL('**/changepassword');
    const token = await page.evaluate(() => sessionStorage.getItem('resetToken'));
    const first = await fetch(e2e.url('/api-node/change-password'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ newPassword: 'first-new-pass' }),
    });
    expect(first.status).toBe(200);
    await page.getByLabel('New Password', { exact: true }).fill('second-new-pass');
    await page.getByLabel('Confirm Password', { exact: true }).fill('second-new-pass');
    await page.getByRole('button', { name: 'Change Password' }).click();
    expect(await alertText(e2e)).toBe('This password reset link has expired or was already used');
    expect(path(e2e)).toBe('/changepassword');
  });
});
