"""Export the packaged MiniLM to ONNX once per home, checked against torch (at ingest time).

The runtime side (``geo_rag_runtime.embeddings.OnnxEmbedder``) loads the export without torch; this
side needs torch and the ``onnx`` package, which ingest has loaded anyway. The transformer is traced
with ``torch.onnx.export``; then the ONNX vectors of probe texts (notation, unicode, a text long
enough to be windowed) are compared with the torch vectors, and only when the largest difference is
at most ``MAX_ABS_DIFF`` and the windows agree is ``manifest.json`` written beside the model — the
runtime opens no export without it.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from geo_rag_runtime.embeddings import (
    MAX_ABS_DIFF,
    OnnxEmbedder,
    SentenceTransformerEmbedder,
    export_folder,
    weights_identity,
)
from geo_rag_runtime.settings import Settings

__all__ = ["PROBES", "export_onnx"]

OPSET = 17
PROBES = (
    "What 87Sr/86Sr values are reported for the Hawaiian basalts?",
    "δ18O of zircon is 5.3 ± 0.2‰ (2σ) in the MORB-like samples; εNd = +6.3 to +6.7.",
    "SiO2 48–52 wt.%, MgO 8.5 wt.%, La/Yb 12, U(IV) and Fe3+/ΣFe of 0.15 in olivine-hosted melt inclusions",
    "Zircon U–Pb ages of 251.9 ± 0.1 Ma (MSWD = 1.2) date the eruption.",
    "tholeiitic",
    "Der Basalt enthält Olivin und Klinopyroxen; 玄武岩的同位素组成。",
)


TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "config.json",
)


def export_onnx(settings: Settings, model_path: str | None = None) -> dict[str, Any]:
    """Export the local MiniLM to ONNX in this home and verify it against torch (see module doc).

    Returns the manifest (``verified`` False and no manifest file when the vectors differ by more
    than :data:`MAX_ABS_DIFF`). Needs torch and the ``onnx`` package; runs in seconds.
    """
    import torch

    started = time.perf_counter()
    reference = SentenceTransformerEmbedder(model_path)
    model_path = reference._path
    folder = export_folder(settings)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manifest.json").unlink(missing_ok=True)  # unverified until the end
    transformer: Any = reference.model[0].auto_model
    transformer.eval()

    class _Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transformer = transformer

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.transformer(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    sample = torch.ones(2, 8, dtype=torch.long)
    axes = {0: "batch", 1: "tokens"}
    partial = folder / f"model.onnx.{os.getpid()}.tmp"
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on ops it decomposes; the check below decides
        torch.onnx.export(
            _Encoder(),
            (sample, sample, torch.zeros_like(sample)),
            str(partial),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["last_hidden_state"],
            dynamic_axes={
                "input_ids": axes,
                "attention_mask": axes,
                "token_type_ids": axes,
                "last_hidden_state": axes,
            },
            opset_version=OPSET,
            dynamo=False,  # the TorchScript exporter: the dynamo one needs onnxscript
        )
    os.replace(partial, folder / "model.onnx")
    manifest: dict[str, Any] = {
        "weights": weights_identity(model_path),
        "dim": reference.dim,
        "max_window_tokens": reference.max_window_tokens,
        "opset": OPSET,
        "torch": torch.__version__,
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    # the tokenizer travels with the export: a serving install (`geo-rag[serve]`, no torch, no weights
    # package) embeds questions from this folder alone
    for name in TOKENIZER_FILES:
        if (Path(model_path) / name).is_file():
            shutil.copyfile(Path(model_path) / name, folder / name)
    manifest["tokenizer_files"] = [n for n in TOKENIZER_FILES if (folder / n).is_file()]
    candidate = OnnxEmbedder(folder, model_path, manifest)
    long_text = " ".join(PROBES * 12)  # several windows
    probes = [*PROBES, long_text]
    difference = float(np.abs(candidate.embed_documents(probes) - reference.embed_documents(probes)).max())
    same_windows = candidate.windows(long_text) == reference.windows(long_text)
    manifest.update(
        max_abs_diff=difference,
        probes=len(probes),
        same_windows=same_windows,
        verified=difference <= MAX_ABS_DIFF and same_windows,
        seconds=round(time.perf_counter() - started, 2),
    )
    if manifest["verified"]:
        (folder / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return manifest
