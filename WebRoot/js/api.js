// The JSON API (routes and error bodies: docs/api.md). Errors become `ApiError` carrying the server's message.

export class ApiError extends Error {
  constructor(status, body) {
    const where = body?.location ? ` (at ${body.location})` : '';
    const text = body?.detail ? `${body.error ?? 'Error'}: ${body.detail}${where}` : (body?.error ?? `HTTP ${status}`) + where;
    super(text);
    this.status = status;
    this.error = body?.error ?? `HTTP ${status}`;
    this.detail = body?.detail ?? '';
    this.location = body?.location ?? null;
  }
}

function query(params) {
  if (!params) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

async function errorBody(response) {
  try {
    return await response.json();
  } catch {
    return { error: `HTTP ${response.status} ${response.statusText}`.trim() };
  }
}

/** GET a JSON resource; `signal` aborts it (used by the timeline while panning). */
export async function getJSON(path, params, { signal } = {}) {
  const response = await fetch(`${path}${query(params)}`, { signal, headers: { Accept: 'application/json' } });
  if (!response.ok) throw new ApiError(response.status, await errorBody(response));
  return response.json();
}

export const listTraces = () => getJSON('/api/traces');
export const getTrace = (id) => getJSON(`/api/traces/${encodeURIComponent(id)}`);

export async function deleteTrace(id) {
  const response = await fetch(`/api/traces/${encodeURIComponent(id)}`, { method: 'DELETE' });
  if (!response.ok) throw new ApiError(response.status, await errorBody(response));
}

/** The `api` object of ctx: paths relative to /api/traces/{id}/. */
export function traceApi(traceId) {
  const base = `/api/traces/${encodeURIComponent(traceId)}/`;
  return {
    get: (path, params, options) => getJSON(base + path.replace(/^\//, ''), params, options),
  };
}

/**
 * Uploads a file as a raw body. XMLHttpRequest (not fetch) because only it reports upload
 * progress. `onProgress(fraction)` while sending, `onParsing()` once the body is sent and the
 * server is reading the trace. Resolves to `{trace, summary}`, rejects with ApiError.
 */
export function uploadTrace(file, { onProgress, onParsing } = {}) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/traces?name=${encodeURIComponent(file.name)}`);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.responseType = 'json';
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress?.(event.loaded / event.total);
    };
    xhr.upload.onload = () => onParsing?.();
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) resolve(xhr.response);
      else reject(new ApiError(xhr.status, xhr.response ?? { error: `HTTP ${xhr.status}` }));
    };
    xhr.onerror = () => reject(new ApiError(0, { error: 'Upload failed', detail: 'the connection to the server was lost' }));
    xhr.send(file);
  });
}
