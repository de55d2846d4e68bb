// Each closed solution's box (sphinx-exercise's dropdown) that holds code or output:
// whether any of it is visible now (tests/site/browser/test_pages.py, the solution rule).
() => [...document.querySelectorAll('.solution.dropdown, details.solution')]
  .map(box => [...box.querySelectorAll('.cell_input, .cell_output, pre')])
  .filter(inner => inner.length)
  .map(inner => inner.some(el => { const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden'; }))
