// An attention heat map as SVG: one row per query token, one column per key token, each
// cell as dark as its weight (0 white, 1 darkest), as illustrated.draw's attention maps.
// Hovering a cell shows its weight.

const SVG = "http://www.w3.org/2000/svg";
const CELL = 22; // pixels per cell

function el(name, attrs, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

// White to the book's dark blue, through the weight w in [0, 1].
function colour(w) {
  const mix = (a, b) => Math.round(a + (b - a) * Math.min(1, Math.max(0, w)));
  return `rgb(${mix(255, 8)},${mix(255, 48)},${mix(255, 107)})`;
}

// matrix: {rows, cols, at(i, j)}; rowLabels (length rows), colLabels (length cols).
export function heatmap(matrix, rowLabels, colLabels, caption) {
  const { rows, cols } = matrix;
  const width = (labels) => Math.max(...labels.map((s) => s.length)) * 7.5 + 10;
  // Column labels are turned 60 degrees: they rise by sin 60 and lean right by cos 60.
  const left = width(rowLabels), top = width(colLabels) * 0.87 + 8;
  const svg = el("svg", { width: left + cols * CELL + width(colLabels) * 0.5 + 4,
                          height: top + rows * CELL + 4,
                          role: "img", "aria-label": caption,
                          "data-rows": rows, "data-cols": cols, class: "lt-heatmap" });
  svg.append(el("title", {}, caption));
  colLabels.forEach((label, j) => {
    const x = left + j * CELL + CELL / 2 + 4, y = top - 6;
    svg.append(el("text", { x, y, transform: `rotate(-60 ${x} ${y})`, class: "lt-label" }, label));
  });
  rowLabels.forEach((label, i) => svg.append(
    el("text", { x: left - 6, y: top + i * CELL + CELL * 0.7, "text-anchor": "end",
                 class: "lt-label" }, label)));
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const w = matrix.at(i, j);
      const cell = el("rect", { x: left + j * CELL, y: top + i * CELL, width: CELL - 1,
                                height: CELL - 1, fill: colour(w), class: "lt-cell" });
      cell.append(el("title", {}, `${rowLabels[i]} → ${colLabels[j]}: ${w.toFixed(3)}`));
      svg.append(cell);
    }
  }
  return svg;
}
