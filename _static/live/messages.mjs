// What page.mjs says, in the language of the edition it is on: English, or Chinese on the
// Chinese edition's copy of the page (zh/, <html lang="zh-CN">). The page's static words
// (labels, buttons: the elements with data-msg, and data-msg-aria for an aria-label) are
// English in its HTML; `labels` puts them in the edition's language. `limits` holds the
// refusals and warnings of limits.mjs: templates whose {name} fields limits.fill() fills.

// An English count's noun: "1 token", "2 tokens".
const plural = (n, one, many) => (n === 1 ? one : many);

const EN = {
  loading: (got, total) => `Loading the model: ${got} of ${total} MB …`,
  crossCaption: (layer, head) => `Cross-attention, decoder layer ${layer}, head ${head}: ` +
    "rows are the English tokens being written, columns the French tokens read",
  selfCaption: (layer, head) => `Encoder self-attention, layer ${layer}, head ${head}: ` +
    "each French token (row) reading the others (columns)",
  layer: "layer",
  head: "head",
  step: (i, id) => `step ${i}: token ${id}`,
  reads: (n) => `The model reads ${n} tokens: `,
  beam: (k) => `beam search of size ${k}`,
  greedy: "greedy decoding",
  translating: (i, n) => `Translating sentence ${i} of ${n} …`,
  // `done` sentences of `total` translated, the others refused.
  translated: (how, seconds, done, total) => {
    const what = total === 1 ? "" : done === total ? ` all ${total} sentences`
      : ` ${done} of ${total} sentences`;
    const others = done < total ? "; below, why the others were not" : "";
    return `Translated${what} by ${how} in ${seconds} s, in this browser${others}.`;
  },
  allRefused: (n) => (n === 1 ? "Not translated: the reason is below."
    : `None of the ${n} sentences can be translated: the reasons are below.`),
  empty: "Type a French sentence first.",
  failed: (message) => `The translator failed: ${message}`,
  noModel: "This build of the book has no model files for the translator " +
    "(`make book` exports them; its messages say why it could not).",
  noRuntime: "This build of the book lacks the translator's scripts (onnxruntime-web, " +
    "installed by `npm ci` during `make book`; its messages say why it could not).",
  noTokenizer: "This build lacks the page's tokenizer (_static/live/tokenizer.js), so it " +
    "cannot read text.",
  ready: (mb) => `Ready. The first translation loads the model and onnxruntime (${mb} MB).`,
  cannotStart: (message) => `The translator could not start: ${message}`,
  // The decoding lab (lab.mjs).
  labWhere: (i, n) => `Step ${i} of ${n}`,
  labWritten: "Written so far:",
  labGreedyTop: (n) => `The ${n} most likely next ${plural(n, "token", "tokens")}, and the ` +
    "one greedy decoding takes:",
  labPiece: "token",
  labProbability: "probability",
  labLogp: "log-probability",
  labChosen: "← taken",
  labLive: (n) => (n === 1 ? "The 1 live hypothesis this step extends, with its score (the " +
    "sum of its tokens' log-probabilities):" : `The ${n} live hypotheses this step extends, ` +
    "with their scores (the sum of their tokens' log-probabilities):"),
  labCandidates: (n) => `${n === 1 ? "Its 1 best extension" : `Their ${n} best extensions`}, ` +
    "best first, and what the search does with each:",
  labExtends: "extends",
  labPlus: "with the token",
  labHypothesis: "hypothesis",
  labScore: "score",
  labFate: "what happens",
  labFates: { live: "kept in the beam", dropped: "dropped" },
  labFinished: (score) => `finished; score ÷ length penalty = ${score}`,
  labEnd: "The decoding stops after this step.",
  labels: {}, // the page's HTML says it in English already
  // illustrated.translator.limits' messages, word for word (tests/test_live_limits.py compares them):
  // the page and `python -m illustrated translate` answer a sentence in the same words.
  limits: {
    NO_WORDS: "nothing to translate: no words in it",
    NOT_LATIN: "not French: it has letters outside the Latin alphabet ({letters}); the model " +
      "has only read French",
    TOO_LONG: "too long: {n} tokens, the model reads at most {max_len}; split it into shorter " +
      "sentences",
    LONGER_THAN_TRAINING: "longer than any sentence the model was trained on ({n} words; the " +
      "longest French training sentence has {max_words}): expect a poor translation",
    MOSTLY_UNKNOWN: "mostly unknown words ({unknown} of {n} words occur in no French training " +
      "sentence): is it French? The translation is a guess",
    MORE: " and {more} more",
    UNKNOWN_WORDS: "words that occur in no French training sentence ({words}): a name or a " +
      "rare word the model never read may come out wrong",
    DIGITS: "numbers ({numbers}): only {n} of the {pairs} French training sentences have a " +
      "digit, and the model often writes other digits: check them in the translation",
    UNSEEN_SYMBOLS: "symbols that occur in no French training sentence ({symbols}): the model " +
      "never read them and may write anything in their place",
    // the writer's prompt (limits.check_prompt)
    NOT_ENGLISH: "not English: it has letters outside the Latin alphabet ({letters}); the " +
      "writer has only read English",
    FRENCH_PROMPT: "French? {k} of its {n} words occur in French training sentences and in no " +
      "English one ({words}); the writer was trained on English sentences only",
    UNSEEN_PROMPT_SYMBOLS: "symbols that occur in no English training sentence ({symbols}): the " +
      "writer never read them and may write anything after them",
  },
};

const ZH = {
  loading: (got, total) => `正在加载模型：${got} / ${total} MB……`,
  crossCaption: (layer, head) => `交叉注意力，解码器第 ${layer} 层，第 ${head} 个头：` +
    "每行是正在写出的一个英语词元，每列是读入的一个法语词元",
  selfCaption: (layer, head) => `编码器自注意力，第 ${layer} 层，第 ${head} 个头：` +
    "每个法语词元（行）读取其他词元（列）",
  layer: "层",
  head: "头",
  step: (i, id) => `第 ${i} 步：词元 ${id}`,
  reads: (n) => `模型读入 ${n} 个词元：`,
  beam: (k) => `束宽为 ${k} 的束搜索`,
  greedy: "贪心解码",
  translating: (i, n) => `正在翻译第 ${i} 句（共 ${n} 句）……`,
  translated: (how, seconds, done, total) => (total === 1
    ? `用${how}翻译完成，在本浏览器中耗时 ${seconds} 秒。`
    : done === total ? `用${how}翻译了全部 ${total} 句，在本浏览器中耗时 ${seconds} 秒。`
      : `用${how}翻译了 ${total} 句中的 ${done} 句，在本浏览器中耗时 ${seconds} 秒；` +
        "其余各句没有翻译，原因见下。"),
  allRefused: (n) => (n === 1 ? "没有翻译，原因见下。" : `这 ${n} 句都无法翻译，原因见下。`),
  empty: "请先输入一个法语句子。",
  failed: (message) => `翻译出错：${message}`,
  noModel: "本书的这次构建没有翻译器的模型文件（由 `make book` 导出；它的输出会说明导出失败的原因）。",
  noRuntime: "本书的这次构建缺少翻译器的脚本（onnxruntime-web，由 `make book` 中的 `npm ci` 安装；" +
    "它的输出会说明安装失败的原因）。",
  noTokenizer: "这次构建缺少本页的分词器（_static/live/tokenizer.js），因此无法读入文本。",
  ready: (mb) => `准备就绪。第一次翻译时会加载模型和 onnxruntime（${mb} MB）。`,
  cannotStart: (message) => `翻译器无法启动：${message}`,
  labWhere: (i, n) => `第 ${i} 步，共 ${n} 步`,
  labWritten: "已经写出：",
  labGreedyTop: (n) => `下一个词元最可能的 ${n} 种选择，以及贪心解码选中的那一个：`,
  labPiece: "词元",
  labProbability: "概率",
  labLogp: "对数概率",
  labChosen: "← 选中",
  labLive: (n) => `这一步要扩展的 ${n} 个存活假设及其分数（各词元对数概率之和）：`,
  labCandidates: (n) => `它们最好的 ${n} 个扩展，按分数从高到低排列，以及束搜索如何处理每一个：`,
  labExtends: "扩展的假设",
  labPlus: "加上的词元",
  labHypothesis: "假设",
  labScore: "分数",
  labFate: "结果",
  labFates: { live: "留在束中", dropped: "丢弃" },
  labFinished: (score) => `完成；分数 ÷ 长度惩罚 = ${score}`,
  labEnd: "解码在这一步之后结束。",
  labels: {
    french: "法语",
    greedyLabel: "贪心解码",
    beamLabel: "束搜索，束宽",
    beamSize: "束宽",
    translateButton: "翻译",
    pieces: "译文，逐个词元",
    crossTitle: "交叉注意力",
    decoderLayer: "解码器层",
    headMenu: "头",
    selfTitle: "编码器自注意力",
    encoderLayer: "编码器层",
    sentences: "各句及其译文",
    whichLabel: "热力图和逐步解码所示的句子：",
    labTitle: "逐步解码",
    labPrev: "◀ 上一步",
    labNext: "下一步 ▶",
    labStep: "解码步骤",
  },
  limits: { // the same rule, in Chinese
    NO_WORDS: "没有可翻译的内容：句中没有词",
    NOT_LATIN: "不是法语：句中有拉丁字母以外的字符（{letters}）；模型只读过法语",
    TOO_LONG: "太长：共 {n} 个词元，而模型最多读入 {max_len} 个；请把它拆成几个短句",
    LONGER_THAN_TRAINING: "比模型训练时读过的任何句子都长（{n} 个词；最长的法语训练句子有 " +
      "{max_words} 个词）：译文可能很差",
    MOSTLY_UNKNOWN: "大多是生词（{n} 个词中有 {unknown} 个不在任何法语训练句子中出现）：" +
      "这是法语吗？译文只是猜测",
    MORE: "，另有 {more} 个",
    UNKNOWN_WORDS: "有的词不在任何法语训练句子中出现（{words}）：模型从未读过的名字或生僻词，" +
      "译出来可能是错的",
    DIGITS: "含有数字（{numbers}）：{pairs} 个法语训练句子中只有 {n} 个含有数字，模型常常写出别的数字：" +
      "请核对译文中的数字",
    UNSEEN_SYMBOLS: "有的符号不在任何法语训练句子中出现（{symbols}）：模型从未读过它们，" +
      "在它们的位置上可能写出任何东西",
    NOT_ENGLISH: "不是英语：句中有拉丁字母以外的字符（{letters}）；续写器只读过英语",
    FRENCH_PROMPT: "是法语吗？它的 {n} 个词中有 {k} 个在法语训练句子中出现、却不在任何英语训练句子中出现" +
      "（{words}）；续写器只用英语句子训练过",
    UNSEEN_PROMPT_SYMBOLS: "有的符号不在任何英语训练句子中出现（{symbols}）：续写器从未读过它们，" +
      "在它们后面可能写出任何东西",
  },
};

// The live writer's words (writer.mjs). The refusals are the words of
// `python -m illustrated generate` for the same input.
EN.writer = {
  loading: EN.loading,
  ready: (mb) => `Ready. The first press of Write loads the model and onnxruntime (${mb} MB).`,
  writing: (n) => `Writing: ${n} ${plural(n, "token", "tokens")} so far …`,
  written: (n, seconds, ended) => `Wrote ${n} ${plural(n, "token", "tokens")} in ${seconds} s, ` +
    "in this browser; " +
    (ended ? "the model ended the text (<eos>)." : "it stopped at the limit."),
  stepAfter: (i, before) => `Step ${i}, after: ${before}`,
  // The step view (steps.mjs): the model's distribution beside the one the token comes from.
  greedyStep: (token) => `Greedy takes the model's most likely token, ${token}: all the ` +
    "probability goes to it, and temperature, top-k, top-p and the seed play no part.",
  sampleStep: (n, V) => `Temperature, top-k and top-p keep ${n} of the ${V} tokens and ` +
    "share out all the probability among them; the draw then picks one of those.",
  top: (n) => `The model's ${n} most likely tokens (each column's bars scaled to its ` +
    "largest value):",
  tokenColumn: "token",
  modelColumn: "the model",
  greedyColumn: "greedy",
  sampleColumn: "after the settings",
  drawn: "← drawn",
  taken: "← taken",
  strip: "The kept tokens end to end in id order, the order in which the draw adds them " +
    "up; the token drawn is the one whose slice holds u, the seeded generator's next " +
    "number. The tokens of the table above are dark blue (the one drawn orange), the " +
    "others pale blue; a token is named where its slice has room:",
  slice: (token, words) => `${token}: ${words}`,
  around: "The slices next to u's, in id order, with their probabilities:",
  where: (i, n) => `Step ${i} of ${n}`,
  pieceTitle: (i, id) => `step ${i}: token ${id}`,
  failed: (message) => `The writer failed: ${message}`,
  noModel: "This build of the book has no model files for the writer (`make book` " +
    "exports them from illustrated/shipped/tatoeba/writer.pt; its messages say why it could not).",
  noRuntime: EN.noRuntime.replace("translator's", "writer's"),
  noTokenizer: EN.noTokenizer,
  cannotStart: (message) => `The writer could not start: ${message}`,
  labels: {},
  // The command's words (argparse, _cli.at_least, sampling.TEMPERATURE, TOP_K and TOP_P,
  // generate.SEED and generate.TOO_LONG), word for word: tests/test_live_writer.py
  // compares them.
  INVALID: "argument {option}: invalid {kind} value: {value}",
  KINDS: { number: "number", "whole number": "whole number" }, // INVALID's {kind}
  NOT_INTEGER: "argument {option}: expected an integer, got {value}",
  AT_LEAST: "argument {option}: must be {low} or more, got {value}",
  TEMPERATURE: "temperature must be a finite number, 0 or more (0: greedy, always the most " +
    "likely token); got {value}",
  TOP_K: "top-k must be a whole number, 0 or more (0: keep every token); got {value}",
  TOP_P: "top-p must be more than 0 and at most 1 (1: keep every token); got {value}",
  SEED: "the seed must be below 2**32, got --seed {seed}",
  TOO_LONG: "the prompt is {n} tokens long; the model writes at most {room} tokens in all, " +
    "so it must be shorter than {room} tokens to leave room for one new token",
};
ZH.writer = {
  loading: ZH.loading,
  ready: (mb) => `准备就绪。第一次按“续写”时会加载模型和 onnxruntime（${mb} MB）。`,
  writing: (n) => `正在续写：已写出 ${n} 个词元……`,
  written: (n, seconds, ended) => `写出 ${n} 个词元，在本浏览器中耗时 ${seconds} 秒；` +
    (ended ? "模型自己结束了文本（<eos>）。" : "写到上限为止。"),
  stepAfter: (i, before) => `第 ${i} 步，接在以下词元之后：${before}`,
  greedyStep: (token) => `贪心取模型最可能的词元 ${token}：全部概率都给它，温度、top-k、top-p ` +
    "和种子都不起作用。",
  sampleStep: (n, V) => `温度、top-k 和 top-p 从 ${V} 个词元中留下 ${n} 个，把全部概率分给它们；` +
    "抽取再从中选出一个。",
  top: (n) => `模型最可能的 ${n} 个词元（每一列的条形按该列的最大值缩放）：`,
  tokenColumn: "词元",
  modelColumn: "模型",
  greedyColumn: "贪心",
  sampleColumn: "经设置调整后",
  drawn: "← 抽中",
  taken: "← 选中",
  strip: "留下的词元按编号顺序首尾相接，也就是抽取累加它们的顺序；抽中的词元就是其区间包含 u " +
    "的那一个，u 是带种子的生成器给出的下一个数。上表中的词元为深蓝色（抽中的为橙色），" +
    "其余为浅蓝色；区间够宽时才标出词元：",
  slice: (token, words) => `${token}：${words}`,
  around: "u 所在区间两旁的区间及其概率，按编号顺序：",
  where: (i, n) => `第 ${i} 步，共 ${n} 步`,
  pieceTitle: (i, id) => `第 ${i} 步：词元 ${id}`,
  failed: (message) => `续写出错：${message}`,
  noModel: "本书的这次构建没有续写器的模型文件（由 `make book` 从 illustrated/shipped/tatoeba/writer.pt " +
    "导出；它的输出会说明导出失败的原因）。",
  noRuntime: ZH.noRuntime.replace("翻译器", "续写器"),
  noTokenizer: ZH.noTokenizer,
  cannotStart: (message) => `续写器无法启动：${message}`,
  labels: {
    prompt: "提示词（英语）",
    greedyLabel: "贪心",
    sampleLabel: "采样",
    temperatureLabel: "温度",
    maxLabel: "最多词元数",
    greedyNote: "贪心不用这些设置：它总是取最可能的词元",
    wordStart: "▁ 表示一个词的开头（分词器把它存为 Ġ）。",
    seedLabel: "种子",
    writeButton: "续写",
    promptPieces: "模型读入的提示词词元：",
    writtenTitle: "写出的词元（点击一个可查看那一步）：",
    stepsTitle: "每一步的下一个词元的分布",
    stepSlider: "步骤",
  },
  INVALID: "参数 {option}：无效的{kind}值：{value}",
  KINDS: { number: "数", "whole number": "整数" },
  NOT_INTEGER: "参数 {option}：需要一个整数，而输入的是 {value}",
  AT_LEAST: "参数 {option}：必须是 {low} 或更大，而输入的是 {value}",
  TEMPERATURE: "温度必须是 0 或更大的有限数（0：贪心，总是取最可能的词元）；而输入的是 {value}",
  TOP_K: "top-k 必须是 0 或更大的整数（0：保留所有词元）；而输入的是 {value}",
  TOP_P: "top-p 必须大于 0 且不超过 1（1：保留所有词元）；而输入的是 {value}",
  SEED: "种子必须小于 2**32，而输入的是 --seed {seed}",
  TOO_LONG: "提示词有 {n} 个词元；模型总共最多写 {room} 个词元，所以提示词必须少于 {room} 个词元，" +
    "才能留出写一个新词元的位置",
};

// The slider labels in fillSelect: "layer 1" in English, "第 1 层" in Chinese.
EN.numbered = (name, i) => `${name} ${i}`;
ZH.numbered = (name, i) => `第 ${i} ${name === ZH.head ? "个头" : name}`;

// Both editions' words, for the tests (tests/js/live_limits.mjs imports this under Node).
export const editions = { en: EN, zh: ZH };
const lang = globalThis.document?.documentElement.lang || "en";
export const messages = lang.startsWith("zh") ? ZH : EN;
