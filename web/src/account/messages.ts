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
} as const;

export const MIN_PASSWORD = 8;
export const MAX_RECOVERY_INPUT = 100;

/** The server's error text plus its details when it sends any, else the fallback. */
export function errorText(data: unknown, fallback: string): string {
  const body = data as { error?: unknown; details?: unknown } | null;
  const error = typeof body?.error === 'string' && body.error ? body.error : fallback;
  const details = body?.details;
  if (Array.isArray(details) && details.length > 0) return `${error}: ${details.map(String).join(', ')}`;
  if (typeof details === 'string' && details) return `${error}: ${details}`;
  return error;
}
