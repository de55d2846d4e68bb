// The translator's tokenizer in the page: the same ids as Python, from the same JSON file.
//
//   import {prepare, Tokenizer} from "./tokenizer.js";
//   const tok = Tokenizer.fromJSON(await (await fetch("tokenizer.json")).json());
//   const ids = tok.encode(prepare("Je suis\u202f!"));   // [1, ..., 2]
//
// Mirrors illustrated.translator.corpus.clean, illustrated.translator.inference.prepare and pieces,
// and illustrated.translator.tokenizer.SubwordTokenizer, which runs the `tokenizers` library (Rust) on
// illustrated/shipped/tatoeba/tokenizer.json: a byte-level BPE (GPT-2's scheme). Each step below
// names the Python or Rust function it mirrors; tests/test_live_tokenizer.py (Node) and
// tests/site/browser/test_tokenizer.py (Chromium) check it against Python sentence by sentence.
// No dependencies, no build step.

// ------------------------------------------------------------------ text normalisation

// Python's str.isspace() (and so the `\s` of Python's re, and str.strip()): JavaScript's
// `\s` differs (it has U+FEFF, lacks U+001C-U+001F and U+0085), so the set is spelled out.
export const PY_SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a" +
                        "\\u2028\\u2029\\u202f\\u205f\\u3000";
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, "g");

// illustrated.translator.corpus._SPACES: `[\s\u00a0\u2000-\u200b\u202f\u205f\u3000]+`
const SPACES = new RegExp(`[${PY_SPACE}\\u200b]+`, "g");
// illustrated.translator.corpus._APOSTROPHES: `[\u2019\u2018\u02bc`´]`
const APOSTROPHES = /[\u2019\u2018\u02bc`\u00b4]/g;
// illustrated.translator.inference._END: `[.!?…]$`
const END = /[.!?\u2026]$/;

/** Python's str.strip(): Python's whitespace at both ends. */
export function pyStrip(text) {
  return text.replace(PY_STRIP, "");
}

/** illustrated.translator.corpus.clean: NFC, one apostrophe, every run of spaces as one plain space,
 *  stripped. */
export function clean(text) {
  if (typeof text !== "string") {
    throw new TypeError(`text must be a string, got ${typeof text}`);
  }
  text = text.normalize("NFC");          // unicodedata.normalize("NFC", text)
  text = text.replace(APOSTROPHES, "'"); // _APOSTROPHES.sub("'", text)
  return pyStrip(text.replace(SPACES, " ")); // _SPACES.sub(" ", text).strip()
}

/** illustrated.translator.inference.prepare: a French input as the corpus writes its sentences —
 *  illustrated.translator.corpus.clean, the first letter a capital, and "." added when it does not end
 *  with . ! ? or …. Empty text stays empty. */
export function prepare(text) {
  text = clean(text);                   // text = clean(text)
  // text[:1].upper() + text[1:]: Python's text[:1] is one code point (two UTF-16 units
  // for one beyond U+FFFF); both upper() use Unicode's full mapping ("ß" -> "SS").
  const first = text.length && text.codePointAt(0) > 0xffff ? 2 : 1;
  text = text.slice(0, first).toUpperCase() + text.slice(first);
  if (text && !END.test(text)) {        // if text and not _END.search(text)
    text += ".";
  }
  return text;
}

// ------------------------------------------------------------------ byte level

// Rust tokenizers::pre_tokenizers::byte_level::bytes_char (GPT-2's bytes_to_unicode): each
// of the 256 bytes as a printable character. The printable bytes ! to ~, ¡ to ¬ and ® to ÿ
// stand for themselves; the others, in order, become U+0100, U+0101, ... (space is "Ġ").
const BYTE_CHAR = [];
const CHAR_BYTE = new Map();
{
  const printable = (b) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) ||
                           (b >= 0xae && b <= 0xff);
  let n = 0;
  for (let b = 0; b < 256; b++) {
    BYTE_CHAR[b] = String.fromCodePoint(printable(b) ? b : 256 + n++);
    CHAR_BYTE.set(BYTE_CHAR[b], b);
  }
}

// The `\s` of Oniguruma, the regex engine of the Rust library: U+0009-U+000D, U+0085 and the
// space separators (not JavaScript's `\s`, which has U+FEFF and lacks U+0085).
const ONIG_SPACE = "\\t-\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
// Rust byte_level.rs, RE: GPT-2's split into words, numbers, punctuation runs and spaces,
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// the leftmost alternative that matches wins, as in Oniguruma.
const S = `[${ONIG_SPACE}]`, NOT_S = `[^${ONIG_SPACE}]`;
const GPT2_SPLIT = new RegExp(
  `'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^${ONIG_SPACE}\\p{L}\\p{N}]+` +
  `|${S}+(?!${NOT_S})|${S}+`, "gu");

const UTF8 = new TextEncoder();
// Rust String::from_utf8_lossy: a broken byte sequence becomes U+FFFD.
const UTF8_LOSSY = new TextDecoder("utf-8", {fatal: false, ignoreBOM: true});
const UTF8_STRICT = new TextDecoder("utf-8", {fatal: true, ignoreBOM: true});

// ------------------------------------------------------------------ the tokenizer

const SPECIALS = ["<pad>", "<bos>", "<eos>", "<unk>"]; // illustrated.translator.tokenizer.SPECIALS

/** illustrated.translator.tokenizer.SubwordTokenizer: text to [bos, ids..., eos] and back, with
 *  pad = 0, bos = 1, eos = 2, unk = 3. Build it with Tokenizer.fromJSON. */
export class Tokenizer {
  /** From the parsed JSON of a `tokenizers` file (tokenizer.json): a BPE model, the
   *  ByteLevel pre-tokenizer and decoder, no normalizer, the four specials first. Any other
   *  setting throws an Error naming it, rather than tokenising differently from Python. */
  static fromJSON(obj) {
    if (obj === null || typeof obj !== "object" || typeof obj.model !== "object") {
      throw new TypeError("expected the parsed JSON of a tokenizers file (with a \"model\")");
    }
    const model = obj.model, pre = obj.pre_tokenizer || {}, dec = obj.decoder || {};
    const unsupported = [
      [model.type !== "BPE", `model.type ${model.type} (only BPE)`],
      [obj.normalizer != null, `normalizer ${JSON.stringify(obj.normalizer)} (only null)`],
      [pre.type !== "ByteLevel", `pre_tokenizer ${JSON.stringify(obj.pre_tokenizer)} (only ByteLevel)`],
      [dec.type !== "ByteLevel", `decoder ${JSON.stringify(obj.decoder)} (only ByteLevel)`],
      [model.dropout != null, "BPE dropout"],
      [!!model.continuing_subword_prefix, "BPE continuing_subword_prefix"],
      [!!model.end_of_word_suffix, "BPE end_of_word_suffix"],
      [!!model.byte_fallback, "BPE byte_fallback"],
      [(obj.added_tokens || []).some((t) => t.single_word || t.lstrip || t.rstrip),
       "added tokens with single_word, lstrip or rstrip"],
    ].filter(([bad]) => bad).map(([, what]) => what);
    if (unsupported.length) {
      throw new Error(`tokenizer.js cannot mirror ${unsupported.join(", ")}`);
    }
    return new Tokenizer(obj);
  }

  constructor(obj) {
    const model = obj.model;
    // Rust models::bpe::BPE: vocab (token -> id), merges (pair -> rank, new id).
    this.vocab = new Map(Object.entries(model.vocab));
    this.idToToken = new Map([...this.vocab].map(([token, id]) => [id, token]));
    // Rust AddedVocabulary: tokens cut out of the text before anything else; the specials
    // are skipped by decode (Python's skip_special_tokens=True).
    this.added = new Map();
    this.special = new Set();
    for (const t of obj.added_tokens || []) {
      this.added.set(t.content, t.id);
      this.idToToken.set(t.id, t.content);
      if (t.special) this.special.add(t.id);
    }
    // SubwordTokenizer.__init__: the four specials must be ids 0 to 3.
    SPECIALS.forEach((s, i) => {
      const id = this.added.has(s) ? this.added.get(s) : this.vocab.get(s);
      if (id !== i) throw new Error(`the tokenizer must have "${s}" as token ${i}, got ${id}`);
    });
    // Rust BPE::from_file / serde: merges are "a b" strings (older files) or [a, b] pairs;
    // rank = position in the list; the pair of ids maps to [rank, id of a + b].
    this.merges = new Map();
    model.merges.forEach((m, rank) => {
      const [a, b] = typeof m === "string" ? m.split(" ") : m;
      this.merges.set(this.vocab.get(a) + "," + this.vocab.get(b), [rank, this.vocab.get(a + b)]);
    });
    this.ignoreMerges = !!model.ignore_merges;
    this.addPrefixSpace = obj.pre_tokenizer.add_prefix_space !== false;
    this.useRegex = obj.pre_tokenizer.use_regex !== false;
    // Rust AddedVocabulary::split_with_indices: leftmost match, longest first.
    const contents = [...this.added.keys()].sort((a, b) => b.length - a.length);
    const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    this.addedRegex = contents.length
      ? new RegExp(contents.map(escape).join("|"), "gu") : null;
  }

  /** SubwordTokenizer.encode: [bos, ids..., eos]; blank text throws, as Python's ValueError. */
  encode(text) {
    if (typeof text !== "string") {
      throw new TypeError(`text must be a string, got ${typeof text}`);
    }
    if (!pyStrip(text)) {                 // if not text.strip(): raise ValueError(...)
      throw new Error(`empty sentence ${JSON.stringify(text)}`);
    }
    return [1, ...this.encodeIds(text), 2]; // [self.bos_id] + ids + [self.eos_id]
  }

  /** Rust Tokenizer::encode(text, add_special_tokens=false).ids: added tokens, then the
   *  pre-tokenizer and the BPE model on each other piece of the text. */
  encodeIds(text) {
    const ids = [];
    for (const piece of this.splitAdded(text)) {
      if (typeof piece === "number") {
        ids.push(piece);
        continue;
      }
      for (const word of this.preTokenize(piece)) ids.push(...this.bpe(word));
    }
    return ids;
  }

  /** Rust AddedVocabulary::extract_and_normalize: the text cut at each added token (as its
   *  id, a number); the non-empty pieces between stay strings. */
  splitAdded(text) {
    if (!this.addedRegex) return [text];
    const out = [];
    let last = 0;
    for (const m of text.matchAll(this.addedRegex)) {
      if (m.index > last) out.push(text.slice(last, m.index));
      out.push(this.added.get(m[0]));
      last = m.index + m[0].length;
    }
    if (last < text.length) out.push(text.slice(last));
    return out;
  }

  /** Rust pre_tokenizers::byte_level::ByteLevel::pre_tokenize: a space in front
   *  (add_prefix_space, unless the piece starts with one), the GPT-2 split (matches and
   *  anything between kept: SplitDelimiterBehavior::Isolated), then each word's UTF-8 bytes
   *  as BYTE_CHAR characters. */
  preTokenize(piece) {
    if (!piece) return [];                // Rust drops empty splits: no prefix space alone
    if (this.addPrefixSpace && !piece.startsWith(" ")) piece = " " + piece;
    const words = [];
    if (this.useRegex) {
      let last = 0;
      for (const m of piece.matchAll(GPT2_SPLIT)) {
        if (m.index > last) words.push(piece.slice(last, m.index));
        words.push(m[0]);
        last = m.index + m[0].length;
      }
      if (last < piece.length) words.push(piece.slice(last));
    } else {
      words.push(piece);
    }
    return words.map((w) => Array.from(UTF8.encode(w), (b) => BYTE_CHAR[b]));
  }

  /** Rust models::bpe::Word::merge_all, on one word given as byte characters: start from
   *  the characters' ids, and merge the adjacent pair of lowest rank (the leftmost among
   *  equals) until no pair of the word is in the merges. */
  bpe(chars) {
    // Rust BPE::tokenize with ignore_merges: a word in the vocabulary is one token.
    if (this.ignoreMerges && this.vocab.has(chars.join(""))) {
      return [this.vocab.get(chars.join(""))];
    }
    // Rust BPE::merge_word: a character missing from the vocabulary is dropped (no
    // unk_token); with the 256 byte characters in the vocabulary, none is.
    const ids = chars.map((c) => this.vocab.get(c)).filter((id) => id !== undefined);
    for (;;) {
      let best = -1, bestRank = Infinity, bestId = -1;
      for (let i = 0; i + 1 < ids.length; i++) {
        const merge = this.merges.get(ids[i] + "," + ids[i + 1]);
        if (merge && merge[0] < bestRank) [best, bestRank, bestId] = [i, merge[0], merge[1]];
      }
      if (best < 0) return ids;
      ids.splice(best, 2, bestId);
    }
  }

  /** Rust decoders::byte_level::ByteLevel::decode_chain via Tokenizer::decode (Python's
   *  skip_special_tokens=True): each token's characters back to bytes (a token with a
   *  character outside the table gives its own UTF-8), joined, read as UTF-8 (lossy).
   *  Unknown ids are skipped, as in Rust. */
  decodeIds(ids) {
    const bytes = [];
    for (const id of ids) {
      const token = this.idToToken.get(id);
      if (token === undefined || this.special.has(id)) continue;
      bytes.push(...tokenBytes(token));
    }
    return UTF8_LOSSY.decode(new Uint8Array(bytes));
  }

  /** SubwordTokenizer.decode: the text of the ids up to the first eos, bos, padding and
   *  <unk> skipped, stripped. Accepts numbers or BigInts (onnxruntime's int64). */
  decode(ids) {
    const out = [];
    for (const i of toInts(ids)) {        // for i in (int(i) for i in ids):
      if (i === 2) break;                 //   if i == self.eos_id: break
      if (i > 3) out.push(i);             //   if i > self.unk_id: out.append(i)
    }
    return pyStrip(this.decodeIds(out));  // self.tok.decode(out).strip()
  }

  /** illustrated.translator.inference.pieces: each token's text, for showing — the special's name
   *  for ids 0 to 3, else the token decoded alone with "▁" for each space; a token whose bytes
   *  are not whole UTF-8 (part of a character never learned, such as an emoji) by its bytes,
   *  "<F0>" for the byte F0 (inference._shown). */
  pieces(ids) {
    return toInts(ids).map((i) => {
      if (i < 0) throw new RangeError(`token ids must be >= 0, got ${i}`);
      if (i < 4) return SPECIALS[i];
      const token = this.idToToken.get(i);
      if (token === undefined || !Array.from(token).every((c) => CHAR_BYTE.has(c))) {
        return this.decodeIds([i]).replaceAll(" ", "\u2581");
      }
      const bytes = tokenBytes(token);
      try {
        return UTF8_STRICT.decode(new Uint8Array(bytes)).replaceAll(" ", "\u2581");
      } catch {
        return bytes.map((b) => (b === 0x20 ? "\u2581"
          : `<${b.toString(16).toUpperCase().padStart(2, "0")}>`)).join("");
      }
    });
  }
}

/** A token's bytes: its characters through the byte table, or (a character outside the
 *  table) the token's own UTF-8, as Rust's ByteLevel decoder does. */
function tokenBytes(token) {
  const chars = Array.from(token);
  return chars.every((c) => CHAR_BYTE.has(c)) ? chars.map((c) => CHAR_BYTE.get(c))
    : [...UTF8.encode(token)];
}

/** Python's int(i) for each id, for numbers and BigInts; anything else throws. */
function toInts(ids) {
  return Array.from(ids, (i) => {
    const n = Number(i);
    if (!Number.isInteger(n)) throw new TypeError(`token ids must be integers, got ${i}`);
    return n;
  });
}
