/** Small HTTP helpers for tests: JSON in, status and parsed JSON (plus raw text) out. */
export interface HttpResponse<T = any> {
  readonly status: number;
  readonly body: T;
  readonly text: string;
  readonly headers: Headers;
}

export async function http<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: { json?: unknown; body?: string; contentType?: string; headers?: Record<string, string>; query?: Record<string, string | string[]> } = {},
): Promise<HttpResponse<T>> {
  const url = new URL(baseUrl + path);
  for (const [k, v] of Object.entries(options.query ?? {})) {
    for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(k, item);
  }
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  let body: string | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = options.contentType ?? 'application/json';
  } else if (options.contentType) headers['content-type'] = options.contentType;
  const res = await fetch(url, { method: method.toUpperCase(), headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed as T, text, headers: res.headers };
}

export const enc = encodeURIComponent;
