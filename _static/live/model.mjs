// The real translator in the browser: the two ONNX graphs written by scripts/export_onnx.py
// (illustrated/web/onnx_graphs.py), run by onnxruntime-web from the site's own files; and the live
// writer's one graph (LiveWriter).

// Where the files are, relative to this module: _static/live/ and _static/vendor/.
const LIVE = new URL("./", import.meta.url);
const VENDOR = new URL("../vendor/", import.meta.url);

async function fetchBytes(name, onBytes) {
  const response = await fetch(new URL(name, LIVE));
  if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  onBytes(bytes.length);
  return bytes;
}

// onnxruntime-web, from _static/vendor/.
async function runtime() {
  const ort = await import(new URL("ort.wasm.min.mjs", VENDOR).href);
  ort.env.wasm.wasmPaths = VENDOR.href;
  ort.env.wasm.numThreads = 1; // no worker threads: no cross-origin isolation needed
  return ort;
}

// ids (numbers) -> an int64 tensor of the given shape.
function int64(ort, ids, dims) {
  return new ort.Tensor("int64", BigInt64Array.from(ids, BigInt), dims);
}

export class LiveModel {
  // manifest.json (sizes, special ids, max_len, length penalty) and the two sessions.
  constructor(ort, manifest, encoder, decoder) {
    Object.assign(this, { ort, manifest, encoder, decoder });
  }

  static async load(manifest, onBytes = () => {}) {
    const ort = await runtime();
    const [encoderBytes, decoderBytes, weights] = await Promise.all(
      ["encoder.onnx", "decoder.onnx", "weights.bin"].map((name) => fetchBytes(name, onBytes)));
    // Both graphs read the one shared weights file (illustrated.web.onnx_graphs._share_weights).
    const options = { executionProviders: ["wasm"],
                      externalData: [{ path: "weights.bin", data: weights }] };
    const encoder = await ort.InferenceSession.create(encoderBytes, options);
    const decoder = await ort.InferenceSession.create(decoderBytes, options);
    return new LiveModel(ort, manifest, encoder, decoder);
  }

  // illustrated.web.onnx_graphs.EncoderGraph: src (1, S) -> memory (1, S, D) and the encoder's
  // self-attention (1, N, H, S, S).
  async encode(srcIds) {
    const src = int64(this.ort, srcIds, [1, srcIds.length]);
    const out = await this.encoder.run({ src });
    return { src, memory: out.memory, selfAttention: out.self_attention };
  }

  // illustrated.web.onnx_graphs.DecoderGraph for K prefixes of one length T: log-probabilities of
  // the next token (K rows of V) and the cross-attention (K, N, H, T, S).
  async decode(encoded, prefixes) {
    const K = prefixes.length, T = prefixes[0].length;
    const ys = int64(this.ort, prefixes.flat(), [K, T]);
    const out = await this.decoder.run({ memory: encoded.memory, src: encoded.src, ys });
    const V = out.logp.dims[1];
    const rows = Array.from({ length: K }, (_, k) => out.logp.data.subarray(k * V, (k + 1) * V));
    return { logp: rows, crossAttention: out.cross_attention };
  }

  // The `step` of decoding.mjs (illustrated.decoding._step) for this source.
  stepper(encoded) {
    return async (prefixes) => (await this.decode(encoded, prefixes)).logp;
  }
}

// One (rows x cols) matrix of a (…, N, H, rows, cols) attention tensor: layer, head.
export function attentionMatrix(tensor, layer, head) {
  const [N, H, rows, cols] = tensor.dims.slice(-4);
  const start = ((layer * H) + head) * rows * cols; // the first batch row
  const data = tensor.data.subarray(start, start + rows * cols);
  return { rows, cols, N, H, at: (i, j) => data[i * cols + j] };
}

// The decoder-only model (illustrated.web.onnx_graphs.WriterGraph): ids (1, T) -> the
// log-probabilities of the next token (V), the whole prefix read again at each step.
export class LiveWriter {
  constructor(ort, session) {
    Object.assign(this, { ort, session });
  }

  static async load(onBytes = () => {}) {
    const ort = await runtime();
    const [graph, weights] = await Promise.all(
      ["writer.onnx", "writer.bin"].map((name) => fetchBytes(name, onBytes)));
    const session = await ort.InferenceSession.create(graph, {
      executionProviders: ["wasm"], externalData: [{ path: "writer.bin", data: weights }] });
    return new LiveWriter(ort, session);
  }

  // illustrated.decoder_only.sampling._next_logp without a cache: a Float32Array of V.
  async step(ids) {
    const out = await this.session.run({ ids: int64(this.ort, ids, [1, ids.length]) });
    return out.logp.data;
  }
}
