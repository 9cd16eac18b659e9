// The lease on the page header: the time left counting down (mm:ss), a warning at two minutes, a renewal through
// the API while the rater is active, and the moment it runs out said at once.
//
// Active: a key, a pointer press or an answer typed within the last minute. Renewals go out only once less than
// half of the campaign's lease time is left, at most one every RENEW_SPACING_MS; the server caps them (claim + 4 ×
// the lease time), after which the countdown simply runs on.
export const WARN_MS = 2 * 60 * 1000;
export const ACTIVE_MS = 60 * 1000;
const RENEW_SPACING_MS = 20 * 1000;
const TICK_MS = 1000;

// "mm:ss" (hours folded into minutes: a 90-minute lease reads 90:00).
export function clockText(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${String(Math.floor(seconds / 60)).padStart(2, "0")}:${String(seconds % 60).padStart(2, "0")}`;
}

export class LeaseClock {
  // `renew()` answers as api.send does; `onExpired()` is called once, when the time is up (or the server says so).
  constructor(element, { leaseMinutes, renew, onExpired, signal, now = () => Date.now() }) {
    this.element = element;
    this.leaseMs = (leaseMinutes || 30) * 60 * 1000;
    this.renew = renew;
    this.onExpired = onExpired;
    this.now = now;
    this.expiresAt = null;
    this.lastActive = -Infinity; // opening the page is not activity: a key, a pointer or typing is
    this.lastTry = 0;
    this.renewing = false;
    this.over = false;
    this.held = false; // false until the pair is this rater's (a page prepared ahead claims first)
    const active = () => { this.lastActive = this.now(); };
    for (const kind of ["keydown", "pointerdown", "input"]) document.addEventListener(kind, active, { capture: true, passive: true, signal });
    document.addEventListener("visibilitychange", () => this.tick(), { signal });
    const timer = setInterval(() => this.tick(), TICK_MS);
    signal.addEventListener("abort", () => clearInterval(timer));
  }

  // A new expiry from the claim, a saved draft or a renewal; the lease is live again if it was over (a reclaim).
  set(expiresAt) {
    const when = new Date(expiresAt || "");
    if (Number.isNaN(when.getTime())) return;
    this.expiresAt = when.getTime();
    this.element.dataset.expiresAt = when.toISOString();
    this.held = true;
    this.over = false;
    this.tick();
  }

  // Stop counting: the pair was submitted or skipped.
  stop() {
    this.held = false;
    this.element.hidden = true;
  }

  expire() {
    if (this.over) return;
    this.over = true;
    this.element.textContent = "Time ran out";
    this.element.dataset.leaseState = "expired";
    this.onExpired();
  }

  tick() {
    if (!this.held || this.over || this.expiresAt === null) return;
    const left = this.expiresAt - this.now();
    if (left <= 0) {
      this.expire();
      return;
    }
    const warning = left <= WARN_MS;
    this.element.dataset.leaseState = warning ? "warning" : "held";
    this.element.textContent = warning ? `Only ${clockText(left)} left` : `Yours for ${clockText(left)}`;
    const now = this.now();
    if (left < this.leaseMs / 2 && now - this.lastActive <= ACTIVE_MS && !this.renewing && now - this.lastTry >= RENEW_SPACING_MS) {
      this.renewNow();
    }
  }

  async renewNow() {
    this.renewing = true;
    this.lastTry = this.now();
    let result;
    try {
      result = await this.renew();
    } catch {
      result = { ok: false, status: 0, data: null };
    }
    this.renewing = false;
    if (result.ok) this.set(result.data?.expires_at);
    else if (result.status === 409 && result.data?.code === "lease_expired") this.expire();
  }
}
