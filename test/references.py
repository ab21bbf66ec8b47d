"""numpy references the tests compare kernels with (float32 math on the inputs as given)."""

import numpy as np


def attention_reference(q, k, v, scale, causal=False):
    """softmax(q kᵀ · scale) v over the last two axes ([..., L, d] arrays); `causal` masks the keys
    after each query (query i sees keys 0..i)."""
    s = np.matmul(q.astype(np.float32), np.swapaxes(k.astype(np.float32), -1, -2)) * scale
    if causal:
        m, n = s.shape[-2:]
        s = np.where(np.tril(np.ones((m, n), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return np.matmul(p / p.sum(-1, keepdims=True), v.astype(np.float32))
