// JSON over the API from the workspace pages: the session's CSRF token, the answer's status, body and Retry-After.
import { retryAfterSeconds } from "./retry.js";

const csrf = () => document.querySelector("[name=csrfmiddlewaretoken]").value;

export async function send(method, url, body, { keepalive = false, headers = {} } = {}) {
  const response = await fetch(url, {
    method,
    keepalive,
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf(), ...headers },
    body: JSON.stringify(body),
  });
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  const retryAfter = retryAfterSeconds(response.headers.get("Retry-After")) ?? data?.extra?.retry_after ?? null;
  return { ok: response.ok, status: response.status, data, retryAfter };
}
