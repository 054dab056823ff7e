// The console's only way to the gateway: same-origin fetches with the session cookie, and on
// every state change the sign-in's CSRF token in a header. Errors become ApiError with the
// gateway's code and message, which the pages show as they are.
let csrf = '';
export const setCsrf = (token) => (csrf = token);

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export async function api(path, { method = 'GET', body } = {}) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-deskgate-csrf'] = csrf;
  const response = await fetch(`/console/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, data.error ?? 'error', data.message ?? response.statusText);
  return data;
}
