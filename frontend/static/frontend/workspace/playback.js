// Audio and video as raters compare them: a waveform for each audio, keys to play or pause, restart and
// switch between A and B at the same moment, the two videos of a pair played in step, and how much of each
// response has been heard or watched.
import WaveSurfer from "../vendor/wavesurfer/wavesurfer.esm.js";
import { coverageOf, outOfStep, playedShare, switchTime } from "./sync.js";

// The share of a media element's duration that has been played (sync.js), exported here as before.
export { playedShare };

function control(target, key, icon, word) {
  const button = document.createElement("button");
  button.type = "button";
  button.setAttribute("aria-keyshortcuts", key);
  // The name is the content, as for every button with a key: the word and the key as shown, then what it acts on
  // (read by screen readers only), so a speech user's "click Play" matches it (no aria-label that differs).
  button.innerHTML = `<span aria-hidden="true"></span> <span data-word></span> <kbd></kbd><span class="visually-hidden"></span>`;
  button.firstChild.textContent = icon;
  button.querySelector("[data-word]").textContent = word;
  button.querySelector("kbd").textContent = key;
  button.querySelector(".visually-hidden").textContent = ` ${target}`;
  return button;
}

export class Playback {
  // `styleNonce`: the page's Content-Security-Policy nonce, for the <style> wavesurfer.js writes in its shadow root.
  constructor(root, { styleNonce = "" } = {}) {
    this.styleNonce = styleNonce;
    const sides = [...root.querySelectorAll(".side audio, .side video")];
    // The responses' media when they have any (A first), else the prompt's (an audio question).
    this.tracks = (sides.length ? sides : [...root.querySelectorAll(".prompt audio, .prompt video")])
      .map((media) => ({ media, side: media.closest("[data-side]")?.dataset.side || "" }))
      .sort((a, b) => a.side.localeCompare(b.side));
    this.current = 0;
    this.video = this.tracks.length === 2 && this.tracks.every((track) => track.media.tagName === "VIDEO");
    for (const track of this.tracks) this.dress(track);
    if (this.video) this.keepInStep();
    this.show();
  }

  get active() {
    return this.tracks.length > 0;
  }

  dress(track) {
    const { media } = track;
    const bar = document.createElement("div");
    bar.className = "media-bar";
    const who = track.side ? `response ${track.side}` : "the prompt's recording";
    const play = control(who, "m", "▶︎", "Play");
    const restart = control(`${who} from the start`, ",", "⟲", "Restart");
    bar.append(play, restart);
    if (this.tracks.length === 2) bar.append(control("to the other response at the same moment", ";", "⇄", "Switch"));
    const heard = document.createElement("span");
    heard.className = "media-heard";
    heard.dataset.heard = "0";
    bar.append(heard);
    play.addEventListener("click", () => { this.select(track); this.toggle(); });
    restart.addEventListener("click", () => { this.select(track); this.restart(); });
    bar.querySelector("[aria-keyshortcuts=';']")?.addEventListener("click", () => this.switch());
    if (media.tagName === "AUDIO") {
      const wave = document.createElement("div");
      wave.className = "waveform";
      wave.setAttribute("aria-hidden", "true");
      media.after(wave);
      media.controls = false;
      media.hidden = true;
      track.wave = WaveSurfer.create({
        container: wave, media, height: 56, normalize: true, dragToSeek: true,
        waveColor: track.side === "B" ? "#f3c48b" : "#a5b8f0", progressColor: track.side === "B" ? "#b45309" : "#1d4ed8",
        cursorColor: "#111827", cspNonce: this.styleNonce || undefined,
      });
      wave.after(bar);
    } else {
      media.after(bar);
    }
    track.bar = bar;
    track.heard = heard;
    track.play = play;
    const update = () => this.show();
    for (const event of ["play", "pause", "timeupdate", "ended", "loadedmetadata"]) media.addEventListener(event, update);
  }

  select(track) {
    this.current = this.tracks.indexOf(track);
  }

  // Videos of a pair play together: B follows A's clock, and only the current one is heard.
  keepInStep() {
    const [lead, follow] = this.tracks.map((track) => track.media);
    lead.addEventListener("timeupdate", () => {
      if (outOfStep(lead, follow)) follow.currentTime = lead.currentTime;
    });
    lead.addEventListener("seeked", () => { follow.currentTime = lead.currentTime; });
  }

  toggle() {
    const media = this.tracks[this.current].media;
    if (this.video) {
      const playing = this.tracks.some((track) => !track.media.paused);
      for (const track of this.tracks) {
        track.media.muted = track !== this.tracks[this.current];
        if (playing) track.media.pause(); else track.media.play();
      }
      return;
    }
    for (const track of this.tracks) if (track.media !== media) track.media.pause();
    if (media.paused) media.play(); else media.pause();
  }

  restart() {
    for (const track of this.video ? this.tracks : [this.tracks[this.current]]) track.media.currentTime = 0;
    if (this.tracks[this.current].media.paused) this.toggle();
  }

  // The other response from the same moment: a rater hears the same bar of music in A and then in B.
  switch() {
    if (this.tracks.length < 2) return;
    const from = this.tracks[this.current].media;
    this.current = 1 - this.current;
    const to = this.tracks[this.current].media;
    if (this.video) {
      from.muted = true;
      to.muted = false;
    } else {
      const wasPlaying = !from.paused;
      from.pause();
      to.currentTime = switchTime(from, to);
      if (wasPlaying) to.play();
    }
    this.show();
  }

  show() {
    this.tracks.forEach((track, index) => {
      const share = playedShare(track.media);
      const verb = track.media.tagName === "VIDEO" ? "watched" : "heard";
      track.heard.dataset.heard = share.toFixed(3);
      track.heard.textContent = `${verb} ${Math.round(share * 100)} %`;
      track.bar.classList.toggle("current", index === this.current && this.tracks.length > 1);
      track.play.firstChild.textContent = track.media.paused ? "▶︎" : "❚❚";
      track.play.querySelector("[data-word]").textContent = track.media.paused ? "Play" : "Pause";
    });
  }

  // The share heard or watched of each response, by side (the prompt's recording under "prompt").
  coverage() {
    return coverageOf(this.tracks);
  }
}
