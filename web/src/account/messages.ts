/** Texts of product-spec.md sections 5 and 8, written once and shared by the account screens. */
export const MSG = {
  emailRequired: 'Please enter your email address.',
  codeRequired: 'Please enter the verification code.',
  codeIncorrect: 'Incorrect verification code. Please try again.',
  fieldBlank: 'The field cannot be blank',
  mismatch: 'Passwords do not match',
  tooShort: 'Password must be at least 8 characters',
  changeFailed: 'Error changing password',
  blankFields: 'The following fields cannot be blank: ',
  updateFailed: 'Error updating user profile',
  fetchFailed: 'Error fetching user profile',
  noOperations: 'No operations found',
  unreachable: 'Could not reach the server. Please try again.',
  sessionExpired: 'Your recovery session has expired. Please request a new code.',
} as const;

export const MIN_PASSWORD = 8;
export const MAX_RECOVERY_INPUT = 100;

/** One line per validation issue the server names: "path: message", or the plain string. */
function detailLines(details: unknown): string[] {
  if (typeof details === 'string') return details ? [details] : [];
  if (!Array.isArray(details)) return [];
  return details
    .map((d) => {
      if (typeof d === 'string') return d;
      const issue = d as { path?: unknown; message?: unknown } | null;
      if (typeof issue?.message !== 'string') return '';
      return typeof issue.path === 'string' && issue.path ? `${issue.path}: ${issue.message}` : issue.message;
    })
    .filter(Boolean);
}

/** The server's error text plus any details it adds, else the fallback. */
export function errorText(data: unknown, fallback: string): string {
  const body = data as { error?: unknown; details?: unknown } | null;
  const error = typeof body?.error === 'string' && body.error ? body.error : fallback;
  const extra = detailLines(body?.details).filter((line) => !error.includes(line.split(': ').pop() ?? line));
  return extra.length > 0 ? `${error} (${extra.join('; ')})` : error;
}
