// The JupyterLab plugin of the book (labextension/README.md): a chapter opened with
// `make lab` reads as its page does. jupyterlab-myst renders the chapters' MyST; three
// things of the book it cannot know, and this plugin fills them in:
//
// 1. Glued numbers. MyST-NB's {glue:text}`name:.4f` is unknown to jupyterlab-myst, which
//    shows its body ("name:.4f") as text. The value is in the notebook, in the output of
//    the cell that glued it; the plugin writes format(value, ".4f") there (format.mjs),
//    or, before that cell has run, the name alone.
// 2. Citations. jupyterlab-myst has no bibliography: {cite}`key` shows as a warning
//    ("Citation Not Found" and the key). The plugin shows what the book shows
//    ("[Vaswani et al., 2017]", "Source 004": references.json, made from references.bib
//    by scripts/lab_references.py) with the bibliography entry in its tooltip.
// 3. Explorers (illustrated.explorers). Their output holds the book's HTML and a Vega-Lite
//    spec; JupyterLab prefers HTML (rank 50) to its own Vega renderer (rank 57), so the
//    page's note showed instead of the chart. The plugin ranks the Vega-Lite renderer
//    first for the explorers' MIME type, and keeps it from writing a PNG of the chart
//    into the notebook (which marked a freshly opened chapter as changed).
//
// And a solution's folded cells (scripts/execute_notebooks.py folds them) say what they are
// instead of showing their first line. None of this changes the notebook: only what
// jupyterlab-myst and JupyterLab drew.
import {formatPlainText} from "./format.mjs";

export const VEGALITE_MIME = "application/vnd.vegalite.v5+json";  // illustrated.explorers
export const VEGALITE_RANK = 40;  // before text/html (50)
const CITE_WARNING = 'span[title="Citation Not Found"]';  // jupyterlab-myst's warning

// The roles of a markdown cell's source, in order: [{role, body}].
export function roles(source, prefix) {
  const found = [];
  for (const m of source.matchAll(/\{([a-z][\w:-]*)\}`([^`]*)`/g)) {
    if (m[1] === prefix || m[1].startsWith(prefix + ":")) found.push({role: m[1], body: m[2]});
  }
  return found;
}

// What {glue:text}`body` shows, given the notebook's glued reprs (name -> text/plain), and
// whether it is the value; before the gluing cell has run: the name, without its format.
export function glueText(body, glued) {
  const colon = body.lastIndexOf(":");
  const [name, spec] = colon < 0 ? [body, "s"] : [body.slice(0, colon), body.slice(colon + 1)];
  if (glued.has(name)) {
    try {
      return {text: formatPlainText(glued.get(name), spec), value: true};
    } catch (err) {
      console.warn(`illustrated-lab: glued ${name}: ${err.message}`);
    }
  }
  return {text: name, value: false};
}

// What a citation shows: the book's words for this role (references.json), or the key in
// brackets for a key the bibliography does not have.
export function citeText(role, key, references) {
  const entry = references[key];
  return entry ? entry[role] ?? entry.cite : `[${key}]`;
}

function gluedValues(notebook) {
  const glued = new Map();
  for (const cell of notebook.model?.cells ?? []) {
    if (cell.type !== "code") continue;
    for (const output of cell.outputs.toJSON()) {
      const record = output.metadata?.scrapbook;  // as myst_nb.ext.glue reads it
      const text = record && output.data?.[(record.mime_prefix ?? "") + "text/plain"];
      if (text !== undefined && text !== null) {
        glued.set(record.name, Array.isArray(text) ? text.join("") : text);
      }
    }
  }
  return glued;
}

// The rendered spans that show a role's body as text: jupyterlab-myst draws an unknown
// role as a bare <span>body</span>.
function bareSpans(node, bodies) {
  return [...node.querySelectorAll("span:not([class]), span.illustrated-glue")].filter(
    span => span.childNodes.length === 1 && span.firstChild.nodeType === Node.TEXT_NODE
      && (bodies.has(span.textContent) || span.dataset.glue));
}

function fixGlue(cell, glued) {
  const wanted = roles(cell.model.sharedModel.getSource(), "glue");
  if (!wanted.length) return;
  const bodies = new Set(wanted.map(r => r.body));
  for (const span of bareSpans(cell.node, bodies)) {
    const body = span.dataset.glue ?? span.textContent;
    const {text, value} = glueText(body, glued);
    span.dataset.glue = body;
    span.classList.add("illustrated-glue");
    span.classList.toggle("illustrated-glue-pending", !value);
    span.title = value ? `glued by the notebook: {glue:text}\`${body}\``
      : `${body.split(":")[0]}: the cell that glues it has not run yet`;
    if (span.firstChild.nodeValue !== text) span.firstChild.nodeValue = text;  // React's node
  }
}

function fixCitations(cell, references) {
  const wanted = roles(cell.model.sharedModel.getSource(), "cite");
  const warnings = [...cell.node.querySelectorAll(`${CITE_WARNING}, span[data-cite]`)];
  for (const span of warnings) {
    const text = [...span.childNodes].find(n => n.nodeType === Node.TEXT_NODE);
    const key = span.dataset.cite ?? text?.nodeValue;
    const role = wanted.find(r => r.body === key)?.role ?? "cite";
    span.dataset.cite = key;
    span.className = "illustrated-cite";
    span.title = references[key]?.reference ?? key;
    const shown = citeText(role, key, references);
    if (text && text.nodeValue !== shown) text.nodeValue = shown;
  }
}

// The cells inside a gated solution, as scripts/execute_notebooks.py finds them (and folds
// them): after the cell with {solution-start}, before the one with {solution-end}.
export function inSolution(cells) {
  let inside = false;
  return cells.map(({type, source}) => {
    const marks = type === "markdown"
      ? [...source.matchAll(/\{(solution-start|solution-end)\}/g)].map(m => m[1]) : [];
    const folded = inside && !marks.length;
    for (const mark of marks) inside = mark === "solution-start";
    return folded;
  });
}

// A folded cell shows its first line, which in a solution gives the answer away: a
// solution's folded cells say what they are instead.
const STYLE = `
.illustrated-cite > svg { display: none; }
.illustrated-glue-pending { font-style: italic; color: var(--jp-content-font-color2); }
.illustrated-solution .jp-PlaceholderText { display: none; }
.illustrated-solution .jp-InputPlaceholder .jp-Placeholder-contentContainer::before {
  content: "Part of the solution: click to unfold";
  font-style: italic; color: var(--jp-content-font-color2); margin-right: 0.5em;
}
`;

function watch(panel, references) {
  let pending = false;
  const fix = () => {
    pending = false;
    const glued = gluedValues(panel.content);
    const cells = panel.content.widgets;
    const solution = inSolution(cells.map(cell => ({
      type: cell.model.type, source: cell.model.sharedModel.getSource()})));
    cells.forEach((cell, index) => {
      cell.node.classList.toggle("illustrated-solution", solution[index]);
      if (cell.model.type !== "markdown") return;
      fixGlue(cell, glued);
      fixCitations(cell, references);
    });
  };
  // jupyterlab-myst draws a markdown cell whenever it is shown or edited: fix after it.
  const observer = new MutationObserver(() => {
    if (!pending) {
      pending = true;
      requestAnimationFrame(fix);
    }
  });
  observer.observe(panel.content.node, {childList: true, subtree: true, characterData: true});
  panel.disposed.connect(() => observer.disconnect());
}

function rankVegaLite(rendermime) {
  const vega = rendermime.getFactory(VEGALITE_MIME);
  if (!vega) return;
  rendermime.addFactory({
    safe: vega.safe,
    mimeTypes: [VEGALITE_MIME],
    createRenderer(options) {
      const renderer = vega.createRenderer(options);
      const render = renderer.renderModel.bind(renderer);
      // The model without setData: JupyterLab's renderer stores a PNG of the chart in
      // the output it draws, which changes the notebook.
      renderer.renderModel = model => render({
        data: model.data, metadata: model.metadata, trusted: model.trusted, setData() {},
      });
      return renderer;
    },
  }, VEGALITE_RANK);
}

export function plugin(INotebookTracker, IRenderMimeRegistry, base) {
  return {
    id: "illustrated-lab:plugin",
    description: "The book's glued numbers, citations and explorers in its chapters",
    autoStart: true,
    requires: [INotebookTracker, IRenderMimeRegistry],
    activate(app, tracker, rendermime) {
      rankVegaLite(rendermime);
      const style = document.createElement("style");
      style.textContent = STYLE;
      document.head.appendChild(style);
      const references = fetch(new URL("references.json", base)).then(
        response => response.json()).catch(err => {
        console.warn("illustrated-lab: no references.json:", err);
        return {};
      });
      tracker.widgetAdded.connect((_, panel) => {
        references.then(refs => watch(panel, refs));
      });
    },
  };
}
