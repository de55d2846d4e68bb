"""What only the book's two live pages use: the real translator and the decoder-only model
as ONNX graphs (:mod:`illustrated.web.onnx_graphs`), which ``scripts/export_onnx.py`` writes
into the site for onnxruntime-web to run in the browser. Introduced with the live pages
(Try it: the live translator, the live writer).
"""
