// The list button of the article's header opens the page's contents (the drawer of
// pydata-sphinx-theme). The theme binds its drawer to the first `.secondary-toggle` of
// the page only, the top bar's, which sphinx-book-theme hides: the header's own button,
// the one a reader sees below 1600 px (_static/layout.css), did nothing when clicked.
// It now clicks the bound one.
document.addEventListener("DOMContentLoaded", () => {
  const [bound, ...others] = document.querySelectorAll(".secondary-toggle");
  for (const button of others) {
    button.addEventListener("click", (event) => {
      event.preventDefault();
      event.stopPropagation();
      bound.click();
    });
  }
});
