// JSON over the API from the workspace pages: the session's CSRF token, the answer's status and body.
const csrf = () => document.querySelector("[name=csrfmiddlewaretoken]").value;

export async function send(method, url, body, { keepalive = false } = {}) {
  const response = await fetch(url, {
    method,
    keepalive,
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf() },
    body: JSON.stringify(body),
  });
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  return { ok: response.ok, status: response.status, data };
}
