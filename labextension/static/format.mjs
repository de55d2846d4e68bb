// Python's format(), as MyST-NB applies it to a glued value: {glue:text}`name:.4f` shows
// format(value, ".4f") of the value a cell glued (myst_nb.core.variables.format_plain_text).
// JupyterLab has no Python at hand, so this module does the same in JavaScript, digit for
// digit: floats are rounded from their exact binary value, half to even, as CPython rounds.
// tests/test_lab_format.py checks it against Python on every glued number of the book.
// What it does not know (fill, alignment, width, "#", "0", "z"; the types b, c, n, o, x)
// it refuses with an Error; the plugin then shows the glued name without its format.

const SPEC = /^([+\- ])?(,)?(?:\.(\d+))?([defgs%])?$/;

// The value Python's ast.literal_eval gives for a glued text/plain repr: a number (a BigInt
// for an integer), a string, a boolean, or null; anything else (a list, a tensor's repr)
// stays the text itself, as MyST-NB keeps it.
export function literal(text) {
  const t = text.trim();
  if (/^[+-]?\d+$/.test(t)) return BigInt(t);
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return Number(t);
  const quoted = /^'((?:[^'\\]|\\.)*)'$|^"((?:[^"\\]|\\.)*)"$/s.exec(t);
  if (quoted) {
    const body = quoted[1] ?? quoted[2];
    return body.replace(/\\(.)/gs, (_, c) => ({n: "\n", t: "\t"})[c] ?? c);
  }
  if (t === "True" || t === "False") return t === "True";
  if (t === "None") return null;
  return text;
}

// Python's str() of a literal's value.
function str(value) {
  if (value === null) return "None";
  if (value === true || value === false) return value ? "True" : "False";
  if (typeof value === "number") return pythonRepr(value);
  return String(value);
}

// repr(float): the shortest digits that read back the same (as JavaScript's), in
// Python's layout ("1e-05", "3.0", "1e+16").
function pythonRepr(x) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const [mantissa, exp] = x.toExponential().split("e");
  const e = Number(exp);
  if (e < -4 || e >= 16) {
    return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  const s = x.toFixed(Math.max(0, mantissa.replace(/^-?\d\.?/, "").length - e));
  return s.includes(".") ? s : s + ".0";
}

// The exact decimal expansion of a finite double |x|: integer and fraction digits.
function exactDecimal(x) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const high = view.getUint32(0);
  const biased = (high >>> 20) & 0x7ff;
  let mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  let exp2 = -1074;
  if (biased !== 0) {
    mantissa |= 1n << 52n;
    exp2 = biased - 1075;
  }
  if (exp2 >= 0) return [(mantissa << BigInt(exp2)).toString(), ""];
  const places = -exp2;  // |x| = mantissa * 5^places / 10^places
  const digits = (mantissa * 5n ** BigInt(places)).toString().padStart(places + 1, "0");
  return [digits.slice(0, -places), digits.slice(-places)];
}

// Digits rounded to keep `keep` of them, half to even; returns [digits, carried], where
// carried is true when the rounding added a digit in front (999 -> 1000).
function roundDigits(digits, keep) {
  if (digits.length <= keep) return [digits.padEnd(keep, "0"), false];
  const head = digits.slice(0, keep), rest = digits.slice(keep);
  const last = keep > 0 ? Number(head[keep - 1]) : 0;
  const up = rest[0] > "5" || (rest[0] === "5" && (/[1-9]/.test(rest.slice(1)) || last % 2 === 1));
  if (!up) return [head, false];
  const bumped = (BigInt(head || "0") + 1n).toString().padStart(keep, "0");
  return bumped.length > keep ? [bumped, true] : [bumped, false];
}

function fixed(x, precision) {
  const [whole, fraction] = exactDecimal(x);
  const [digits] = roundDigits(whole + fraction, whole.length + precision);
  const cut = digits.length - precision;
  const head = digits.slice(0, cut).replace(/^0+(?=\d)/, "") || "0";
  return precision > 0 ? `${head}.${digits.slice(cut)}` : head;
}

// [significant digits rounded to `count`, decimal exponent of the first], for |x| > 0.
function significant(x, count) {
  const [whole, fraction] = exactDecimal(x);
  const all = whole + fraction;
  const lead = all.search(/[1-9]/);
  let exponent = whole.length - lead - 1;
  let [digits, carried] = roundDigits(all.slice(lead), count);
  if (carried) {
    digits = digits.slice(0, count);
    exponent += 1;
  }
  return [digits, exponent];
}

function scientific(x, precision) {
  const [digits, exponent] = x === 0 ? ["0".repeat(precision + 1), 0]
    : significant(x, precision + 1);
  const mantissa = precision > 0 ? `${digits[0]}.${digits.slice(1)}` : digits[0];
  return `${mantissa}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
}

function general(x, precision) {
  const p = precision === 0 ? 1 : precision;
  const exponent = x === 0 ? 0 : significant(x, p)[1];
  const text = exponent >= -4 && exponent < p ? fixed(x, p - 1 - exponent)
    : scientific(x, p - 1);
  const [mantissa, exp] = text.split("e");
  const trimmed = mantissa.includes(".") ? mantissa.replace(/0+$/, "").replace(/\.$/, "")
    : mantissa;
  return exp === undefined ? trimmed : `${trimmed}e${exp}`;
}

function grouped(text) {
  const [whole, rest] = /^(\d+)(.*)$/s.exec(text).slice(1);
  return whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + rest;
}

function toFloat(value) {
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "boolean") return value ? 1 : 0;
  const t = String(value).trim().toLowerCase();
  const special = {inf: Infinity, "+inf": Infinity, "-inf": -Infinity, nan: NaN};
  if (t in special) return special[t];
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) {
    throw new Error(`could not convert string to float: ${JSON.stringify(value)}`);
  }
  return Number(t);
}

function toInt(value) {
  if (typeof value === "bigint") return value;
  if (typeof value === "boolean") return value ? 1n : 0n;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`cannot convert ${value} to integer`);
    return BigInt(Math.trunc(value));
  }
  if (/^[+-]?\d+$/.test(String(value).trim())) return BigInt(String(value).trim());
  throw new Error(`invalid literal for int(): ${JSON.stringify(value)}`);
}

// format(value, spec) for the specs the book uses: [sign][,][.precision][type], type one
// of d e f g s % or none.
export function formatValue(value, spec) {
  const parts = SPEC.exec(spec);
  if (!parts) throw new Error(`format spec ${JSON.stringify(spec)} is not supported here`);
  const [, sign = "-", comma, precisionText, type] = parts;
  const precision = precisionText === undefined ? undefined : Number(precisionText);
  if (type === "s" || (type === undefined && typeof value === "string")) {
    if (sign !== "-" || comma) throw new Error(`sign or grouping with a string: ${spec}`);
    const text = str(value);
    return precision === undefined ? text : text.slice(0, precision);
  }
  let negative, body;
  if (type === "d" || (type === undefined && typeof value !== "number")) {
    if (precision !== undefined) throw new Error("precision not allowed in integer format");
    const n = toInt(value);
    negative = n < 0n;
    body = (negative ? -n : n).toString();
  } else {
    const x = toFloat(value);
    negative = x < 0 || Object.is(x, -0);
    const magnitude = Math.abs(x);
    if (!Number.isFinite(magnitude)) {
      body = Number.isNaN(magnitude) ? "nan" : "inf";
      if (type === "%") body += "%";
    } else if (type === "f") body = fixed(magnitude, precision ?? 6);
    else if (type === "e") body = scientific(magnitude, precision ?? 6);
    else if (type === "g") body = general(magnitude, precision ?? 6);
    else if (type === "%") body = fixed(magnitude * 100, precision ?? 6) + "%";
    else if (precision === undefined) body = pythonRepr(magnitude);
    else throw new Error(`format spec ${JSON.stringify(spec)} is not supported here`);
  }
  if (comma && /^\d/.test(body) && !/e/.test(body)) body = grouped(body);
  const mark = negative ? "-" : sign === "+" ? "+" : sign === " " ? " " : "";
  return mark + body;
}

// What {glue:text}`name:spec` shows for a glued text/plain repr: MyST-NB's
// format_plain_text (a name without ":spec" is formatted with "s").
export function formatPlainText(text, spec) {
  const value = literal(text);
  return spec === "" ? str(value) : formatValue(value, spec);
}
