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

/**
 * The server's write token (docs/api.md, Access): a server shared on a network asks for it on
 * uploads and deletes. Kept in this browser's localStorage once the user has entered it.
 */
const WRITE_TOKEN_KEY = 'tracesvc.writeToken';
export const writeToken = {
  get: () => localStorage.getItem(WRITE_TOKEN_KEY),
  set: (token) => (token ? localStorage.setItem(WRITE_TOKEN_KEY, token) : localStorage.removeItem(WRITE_TOKEN_KEY)),
};
const authorization = () => (writeToken.get() ? { Authorization: `Bearer ${writeToken.get()}` } : {});

export const listTraces = () => getJSON('/api/traces');
export const getTrace = (id) => getJSON(`/api/traces/${encodeURIComponent(id)}`);

/**
 * One page of the list: `query` is the filters' query (state.js listQuery), then at most `limit`
 * traces after `cursor`. Resolves to {traces, nextCursor, total}.
 */
export function listTracePage(query, { limit = 200, cursor = null, signal } = {}) {
  const parts = [query, `limit=${limit}`, cursor ? `cursor=${encodeURIComponent(cursor)}` : ''].filter(Boolean);
  return getJSON(`/api/traces?${parts.join('&')}`, null, { signal });
}

/** GET /api/history with a history question's query (state.js historyQuery). */
export const getHistory = (query, { signal } = {}) => getJSON(`/api/history${query ? `?${query}` : ''}`, null, { signal });

/** A write (POST, PATCH, DELETE) with a JSON body and the write token; the answer's JSON, or null for 204. */
export async function sendJSON(method, path, body) {
  const headers = { ...authorization(), Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new ApiError(response.status, await errorBody(response));
  return response.status === 204 ? null : response.json();
}

/** A page of the audit trail (GET /api/audit, the `read` scope: the saved token is sent). */
export async function getAudit({ cursor = null, limit = 100 } = {}) {
  const response = await fetch(`/api/audit${query({ limit, cursor })}`, { headers: { ...authorization(), Accept: 'application/json' } });
  if (!response.ok) throw new ApiError(response.status, await errorBody(response));
  return response.json();
}

/** Replaces a trace's tags (PATCH /api/traces/{id}); resolves to its list entry. */
export const setTraceTags = (id, tags) => sendJSON('PATCH', `/api/traces/${encodeURIComponent(id)}`, { tags });

export async function deleteTrace(id) {
  const response = await fetch(`/api/traces/${encodeURIComponent(id)}`, { method: 'DELETE', headers: authorization() });
  if (!response.ok) throw new ApiError(response.status, await errorBody(response));
}

/** The `api` of a trace view (trace-view.js): paths relative to /api/traces/{id}/. */
export function traceApi(traceId) {
  const base = `/api/traces/${encodeURIComponent(traceId)}/`;
  return {
    get: (path, params, options) => getJSON(base + path.replace(/^\//, ''), params, options),
  };
}

/**
 * Uploads a file as a raw body. XMLHttpRequest (not fetch) because only it reports upload
 * progress. `onProgress(fraction)` while sending, `onParsing()` once the body is sent and the
 * server is reading the trace. `run`: which run of a several-run xctrace export to read (?run=N).
 * Resolves to `{trace, summary, alreadyStored}`, rejects with ApiError.
 */
export function uploadTrace(file, { onProgress, onParsing, run } = {}) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/traces?name=${encodeURIComponent(file.name)}${run ? `&run=${run}` : ''}`);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    for (const [name, value] of Object.entries(authorization())) xhr.setRequestHeader(name, value);
    xhr.responseType = 'json';
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress?.(event.loaded / event.total);
    };
    xhr.upload.onload = () => onParsing?.();
    xhr.onload = () => {
      // 200 (not 201): the same content was stored before, under the name in `trace.name`.
      if (xhr.status >= 200 && xhr.status < 300) resolve({ ...xhr.response, alreadyStored: xhr.status === 200 });
      else reject(new ApiError(xhr.status, xhr.response ?? { error: `HTTP ${xhr.status}` }));
    };
    xhr.onerror = () => reject(new ApiError(0, { error: 'Upload failed', detail: 'the connection to the server was lost' }));
    xhr.send(file);
  });
}
