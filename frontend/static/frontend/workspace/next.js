// The next pair, ahead: its page (GET next/: the pair the next claim most likely gives, no lease taken) parsed into
// this document off screen, with every image loaded and decoded, so that "Next pair" shows it at once.
export async function prepareNext(url) {
  const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } });
  if (response.status !== 200) return null; // 204: nothing is left; the Next button then asks the server
  const parsed = new DOMParser().parseFromString(await response.text(), "text/html");
  // Lazy images of a page that is not shown yet would never load: every one is loaded now, in the browser's cache.
  for (const img of parsed.querySelectorAll("main img[loading]")) img.removeAttribute("loading");
  const main = document.importNode(parsed.querySelector("main"), true);
  const config = JSON.parse(main.querySelector("#workspace-config").textContent);
  const images = [...main.querySelectorAll("img")];
  await Promise.all(images.map((img) => img.decode().catch(() => null)));
  return { main, config, title: parsed.title, images: images.length };
}
