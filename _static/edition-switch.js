// Switching edition keeps the reader's place.
//
// Every page starts with a link to the same page in the other edition (scripts/editions.py,
// edition_link: <p class="edition-switch"><a href="../zh/chapters/06_masking.html">). Both
// editions give a section the same id (Sphinx keeps the English ids on translated
// headings; tests/site/test_pages.py compares them), so this script gives that
// link the section being read as its #hash, and the other edition opens at that section.
// The link moves into the article's sticky header (beside the download and full-screen
// buttons), so a reader in the middle of a chapter reaches it without scrolling back up;
// without JavaScript it stays at the top of the page and opens the top of the other one.
document.addEventListener("DOMContentLoaded", () => {
  const link = document.querySelector(".edition-switch a");
  if (!link) return;
  const page = link.getAttribute("href").split("#")[0];  // as edition_link wrote it
  const buttons = document.querySelector(".bd-header-article .article-header-buttons");
  if (buttons) buttons.prepend(link.parentElement);
  // The section being read: the last one whose top has passed the top fifth of the
  // window (the innermost, as sections nest). Only ids used once: the exercises' boxes
  // all repeat "exercise-content".
  const sections = [...document.querySelectorAll("article section[id]")];
  const once = sections.filter((s) => sections.filter((t) => t.id === s.id).length === 1);
  const reading = () => {
    let id = "";
    for (const section of once) {
      if (section.getBoundingClientRect().top < innerHeight / 5) id = section.id;
    }
    return id;
  };
  const follow = (id) => link.setAttribute("href", id ? `${page}#${encodeURIComponent(id)}` : page);
  const fromHash = () => decodeURIComponent(location.hash.slice(1));
  let queued = false;  // one update per frame while scrolling
  addEventListener("scroll", () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; follow(reading()); });
  }, {passive: true});
  addEventListener("hashchange", () => follow(fromHash()));
  follow(location.hash ? fromHash() : reading());
});
