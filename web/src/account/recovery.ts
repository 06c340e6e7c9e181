/**
 * State of the password-recovery walk, kept in session storage (this tab only, gone when it closes).
 * The verification code itself is never stored: the server makes and checks it.
 */
const EMAIL = 'recoveryEmail';
const RESET_TOKEN = 'resetToken';

export const recovery = {
  email: () => sessionStorage.getItem(EMAIL),
  setEmail: (email: string) => sessionStorage.setItem(EMAIL, email),
  resetToken: () => sessionStorage.getItem(RESET_TOKEN),
  setResetToken: (token: string) => sessionStorage.setItem(RESET_TOKEN, token),
  clear: () => {
    sessionStorage.removeItem(EMAIL);
    sessionStorage.removeItem(RESET_TOKEN);
  },
};

/** POSTs JSON without the signed-in bearer (the recovery calls are public or carry their own token). */
export async function postJson(
  url: string,
  body: unknown,
  bearer?: string,
): Promise<{ ok: boolean; status: number; data: unknown }> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const data: unknown = await res.json().catch(() => null);
  return { ok: res.ok, status: res.status, data };
}
