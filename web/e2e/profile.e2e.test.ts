import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInViaApi, startE2E, type E2E } from './harness.ts';
import { alertText, loginViaApi } from './account-helpers.ts';

const path = (e2e: E2E) => new URL(e2e.page.url()).pathname;
const field = (e2e: E2E, name: string) => e2e.page.locator(`dd[data-field="${name}"]`);

describe('profile', () => {
  let e2e: E2E;
  beforeAll(async () => {
    e2e = await startE2E();
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it('shows the loaded profile and the error state', async () => {
    const { user } = await signInViaApi(e2e);
    const { page } = e2e;
    await page.goto(e2e.url('/profile'));
    await field(e2e, 'email').waitFor();
    expect(await field(e2e, 'email').innerText()).toBe(user.email);
    expect(await field(e2e, 'organization').innerText()).toBe(user.organization);
    expect(await page.getByText(`@${user.username}`).count()).toBe(1);

    // the server refuses the token (and no refresh is possible): the page shows the error text alone
    await page.route('**/api-node/user/profile', (route) =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: JSON.stringify({ error: 'Database is down' }),
      }),
    );
    await page.reload();
    expect(await alertText(e2e)).toBe('Database is down');
    expect(await page.locator('dd[data-field]').count()).toBe(0);
    await page.route('**/api-node/user/profile', (route) => route.abort());
    await page.reload();
    expect(await alertText(e2e)).toBe('Error fetching user profile');
    await page.unrouteAll();
  });

  it('edits with the confirm modal, refuses blank fields, goes back one step on success', async () => {
    await signInViaApi(e2e);
    const { page } = e2e;
    await page.goto(e2e.url('/profile'));
    await page.getByRole('link', { name: 'Edit Profile' }).click();
    await page.waitForURL('**/profile/edit');
    const name = page.getByLabel('Name', { exact: true });
    await name.waitFor();
    expect(await page.getByLabel('Email', { exact: true }).getAttribute('type')).toBe('email');
    expect(await page.getByLabel('Phone', { exact: true }).getAttribute('type')).toBe('tel');

    // a new account has no name, phone or country yet
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await alertText(e2e)).toBe('The following fields cannot be blank: name, phone, country');
    expect(await page.getByRole('dialog').count()).toBe(0);

    await name.fill('Somchai Jaidee');
    await page.getByLabel('Phone', { exact: true }).fill('+66 81 234 5678');
    await page.getByLabel('Country', { exact: true }).fill('Thailand');
    await page.getByRole('button', { name: 'Save' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.getByRole('heading').innerText()).toBe('Confirm Changes');
    expect(await dialog.getByText('Are you sure you want to save these changes?').count()).toBe(1);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(path(e2e)).toBe('/profile/edit');

    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL('**/profile');
    await field(e2e, 'name').getByText('Somchai Jaidee').waitFor();
    expect(await field(e2e, 'phone').innerText()).toBe('+66 81 234 5678');
    expect(await field(e2e, 'country').innerText()).toBe('Thailand');
  });

  it('shows the server error when saving fails', async () => {
    await signInViaApi(e2e);
    const { page } = e2e;
    await page.goto(e2e.url('/profile/edit'));
    await page.getByLabel('Name', { exact: true }).fill('Somchai');
    await page.getByLabel('Phone', { exact: true }).fill('not a phone!');
    await page.getByLabel('Country', { exact: true }).fill('Thailand');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    expect(await alertText(e2e)).toMatch(/^Invalid phone: /);
    expect(path(e2e)).toBe('/profile/edit');

    await page.route('**/api-node/user/profile', (route) =>
      route.request().method() === 'PUT' ? route.abort() : route.continue(),
    );
    await page.getByLabel('Phone', { exact: true }).fill('0812345678');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Error updating user profile').waitFor();
    await page.unrouteAll();
  });

  it('changes the password: blank, short, mismatch, wrong current, then success', async () => {
    const { user } = await signInViaApi(e2e);
    const { page } = e2e;
    await page.goto(e2e.url('/profile'));
    await page.getByRole('link', { name: 'Change Password' }).click();
    await page.waitForURL('**/profile/changepassword');
    const current = page.getByLabel('Current Password', { exact: true });
    const next = page.getByLabel('New Password', { exact: true });
    const confirm = page.getByLabel('Confirm Password', { exact: true });
    const save = page.getByRole('button', { name: 'Save Password' });

    await save.click();
    expect(await alertText(e2e)).toBe('The field cannot be blank');
    await current.fill(user.password);
    await next.fill('short');
    await confirm.fill('short');
    await save.click();
    expect(await alertText(e2e)).toBe('Password must be at least 8 characters');
    await next.fill('new-password-1');
    await confirm.fill('new-password-2');
    await save.click();
    expect(await alertText(e2e)).toBe('Passwords do not match');

    // each field has its own show/hide toggle
    await page.getByRole('button', { name: 'Show new password' }).click();
    expect(await next.getAttribute('type')).toBe('text');
    expect(await current.getAttribute('type')).toBe('password');
    expect(await confirm.getAttribute('type')).toBe('password');

    await current.fill('wrong-current-pw');
    await confirm.fill('new-password-1');
    await save.click();
    await page.getByText('Current password is incorrect').waitFor();
    expect(path(e2e)).toBe('/profile/changepassword');

    await current.fill(user.password);
    await save.click();
    await page.waitForURL('**/newpassword');
    await page.getByRole('heading', { name: 'Your password has been updated' }).waitFor();
    expect(await page.getByRole('link', { name: 'Sign-in' }).getAttribute('href')).toBe('/signin');
    expect((await loginViaApi(e2e, user.username, user.password)).status).toBe(401);
    expect((await loginViaApi(e2e, user.username, 'new-password-1')).status).toBe(200);
  });

  it('Cancel on the password page goes back to /profile', async () => {
    await signInViaApi(e2e);
    await e2e.page.goto(e2e.url('/profile/changepassword'));
    await e2e.page.getByRole('button', { name: 'Cancel' }).click();
    await e2e.page.waitForURL('**/profile');
  });
});
