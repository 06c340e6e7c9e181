import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInViaApi, startE2E, type E2E } from './harness.ts';

interface HistoryRow {
  operation_type: string;
  username: string;
  organization: string;
  time_stamp: string;
}

/** The table body as [operation, user, organization, ISO time, status] per row. */
async function tableRows(e2e: E2E): Promise<string[][]> {
  return e2e.page.locator('table.history-table tbody tr').evaluateAll((rows) =>
    rows
      .filter((r) => r.children.length === 5)
      .map((r) => {
        const cells = Array.from(r.children) as HTMLElement[];
        const time = cells[3].querySelector('time');
        return [cells[0].innerText, cells[1].innerText, cells[2].innerText, time?.dateTime ?? '', cells[4].innerText];
      }),
  );
}

const OPERATIONS = ['Resize', 'Crop', 'Remove Background', 'Bruised Area Calculation', 'Features Analysis: rgb,glcm'];
/** How the operation cell shows a type: a feature analysis summarised by its number of features (issue 27 item 8). */
const shownAs = (type: string) => (type === 'Features Analysis: rgb,glcm' ? 'Feature Analysis (2 features)' : type);

describe('dashboard history', () => {
  let e2e: E2E;
  beforeAll(async () => {
    e2e = await startE2E();
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it("shows 'No operations found' and the first-operation button to a new user", async () => {
    await signInViaApi(e2e);
    const { page } = e2e;
    await page.goto(e2e.url('/dashboard'));
    await page.getByText('No operations found').waitFor();
    expect(await page.locator('table').count()).toBe(0);
    await page.getByRole('button', { name: 'Perform your first operation' }).click();
    await page.waitForURL('**/home');
  });

  it('lists actions made through the API, sorts every column both ways, filters live', async () => {
    const { user, tokens } = await signInViaApi(e2e);
    for (const [i, operationType] of OPERATIONS.entries()) {
      // a second apart, so the stored times differ even at one-second resolution
      if (i > 0) await new Promise((r) => setTimeout(r, 1050));
      const res = await fetch(e2e.url('/api-node/user/action'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tokens.accessToken}` },
        body: JSON.stringify({ operationType }),
      });
      expect(res.ok).toBe(true);
    }
    const api = (await (
      await fetch(e2e.url('/api-node/user/history'), { headers: { Authorization: `Bearer ${tokens.accessToken}` } })
    ).json()) as HistoryRow[];
    expect(api).toHaveLength(OPERATIONS.length);
    const byTime = [...api].sort((a, b) => Date.parse(a.time_stamp) - Date.parse(b.time_stamp));
    expect(byTime.map((r) => r.operation_type)).toEqual(OPERATIONS);

    const { page } = e2e;
    await page.goto(e2e.url('/dashboard'));
    await page.locator('table.history-table').waitFor();
    expect(await page.locator('thead th').allInnerTexts()).toEqual([
      expect.stringContaining('Operation Type'),
      expect.stringContaining('User'),
      expect.stringContaining('Organization'),
      expect.stringContaining('Date/Time'),
      'Status',
    ]);

    // newest first by default; every row is Completed, shows hour and minute, and carries the server time
    let rows = await tableRows(e2e);
    expect(rows.map((r) => r[0])).toEqual([...OPERATIONS].reverse().map(shownAs));
    expect(rows.map((r) => r[3])).toEqual(byTime.map((r) => r.time_stamp).reverse());
    expect(new Set(rows.map((r) => r[4]))).toEqual(new Set(['Completed']));
    expect(rows.every((r) => r[1] === user.username && r[2] === user.organization)).toBe(true);
    const shown = await page.locator('tbody time').first().innerText();
    const newest = new Date(byTime[byTime.length - 1].time_stamp);
    const mm = String(newest.getMinutes()).padStart(2, '0');
    const h24 = String(newest.getHours()).padStart(2, '0');
    const h12 = newest.getHours() % 12 || 12;
    expect(shown).toMatch(new RegExp(`(^|\\D)(0?${h12}|${h24}):${mm}(\\D|$)`));
    expect(shown).toContain(String(newest.getFullYear()));

    const sortBy = (label: string) => page.locator('thead').getByRole('button', { name: label }).click();
    const ariaSort = (label: string) => page.locator('thead th', { hasText: label }).getAttribute('aria-sort');

    // Date/Time: dates as dates
    await sortBy('Date/Time');
    expect(await ariaSort('Date/Time')).toBe('ascending');
    rows = await tableRows(e2e);
    expect(rows.map((r) => r[0])).toEqual(OPERATIONS.map(shownAs));
    await sortBy('Date/Time');
    expect(await ariaSort('Date/Time')).toBe('descending');
    expect((await tableRows(e2e)).map((r) => r[0])).toEqual([...OPERATIONS].reverse().map(shownAs));

    // Operation Type: lower-cased text
    const alphabetical = [...OPERATIONS].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
    await sortBy('Operation Type');
    expect(await ariaSort('Operation Type')).toBe('ascending');
    expect(await ariaSort('Date/Time')).toBe('none');
    expect((await tableRows(e2e)).map((r) => r[0])).toEqual(alphabetical.map(shownAs));
    await sortBy('Operation Type');
    expect(await ariaSort('Operation Type')).toBe('descending');
    expect((await tableRows(e2e)).map((r) => r[0])).toEqual([...alphabetical].reverse().map(shownAs));

    // User and Organization: one user here, so the rows stay and the direction toggles
    for (const label of ['User', 'Organization']) {
      await sortBy(label);
      expect(await ariaSort(label)).toBe('ascending');
      expect(await tableRows(e2e)).toHaveLength(OPERATIONS.length);
      await sortBy(label);
      expect(await ariaSort(label)).toBe('descending');
    }

    // filter by user: case-insensitive substring, narrowing as each key is typed
    await page.getByRole('button', { name: 'Filter by user' }).click();
    const userInput = page.getByRole('dialog', { name: 'Filter by user' }).getByRole('textbox');
    const part = user.username.slice(2, 9).toUpperCase();
    await userInput.pressSequentially(part);
    expect(await tableRows(e2e)).toHaveLength(OPERATIONS.length);
    await userInput.press('Z');
    await userInput.press('Q');
    await page.getByText('No operations match the filters.').waitFor();
    expect(await tableRows(e2e)).toHaveLength(0);
    await userInput.press('Backspace');
    await userInput.press('Backspace');
    expect(await tableRows(e2e)).toHaveLength(OPERATIONS.length);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByRole('button', { name: `Filter by user: ${part}` }).count()).toBe(1);

    // filter by organization
    await page.getByRole('button', { name: 'Filter by organization' }).click();
    const orgInput = page.getByRole('dialog', { name: 'Filter by organization' }).getByRole('textbox');
    await orgInput.fill('mango l');
    expect(await tableRows(e2e)).toHaveLength(OPERATIONS.length);
    await orgInput.fill('lemon');
    expect(await tableRows(e2e)).toHaveLength(0);
    await page.getByRole('button', { name: 'Clear' }).click();
    expect(await tableRows(e2e)).toHaveLength(OPERATIONS.length);
  });
});
