"""The bundled model's vectors do not depend on how texts are batched.

``embed.batch_size`` (and the split of a job across cores) is a speed setting only: a
rule compiled alone, in a small batch or in a large one gets the same bytes, so the
content-addressed vector cache and the byte-identical compile outputs hold whatever the
setting. The default was lowered from 32 to 16 for speed on that basis.
"""

from __future__ import annotations

import numpy as np

from charter.embed.minilm import MiniLMEmbedder

TEXTS = [
    "Use integer cents for every money amount in the billing service.",
    "Never commit secrets, API keys or .env files to the repository.",
    "Run `make test` before every push; CI runs the same target.",
    "x",
    "Invoice numbers come from the database sequence, never from application code, "
    "because two workers can race on a counter held in Python and hand out a number "
    "twice when the queue is retried after a timeout.",
    "Prefer selectinload for invoice lines to avoid N+1 queries in list endpoints.",
] * 6


def test_vectors_are_byte_identical_across_batch_sizes_and_orders() -> None:
    reference = MiniLMEmbedder(batch_size=16).embed(TEXTS)
    for size in (1, 3, 32, 64):
        assert np.array_equal(MiniLMEmbedder(batch_size=size).embed(TEXTS), reference), size
    alone = np.stack([MiniLMEmbedder(batch_size=16).embed([t])[0] for t in TEXTS[:6]])
    assert np.array_equal(alone, reference[:6])
    reverse = MiniLMEmbedder(batch_size=16).embed(TEXTS[::-1])
    assert np.array_equal(reverse[::-1], reference)
    assert reference.shape == (len(TEXTS), 384) and np.all(np.isfinite(reference))


def test_batches_are_cut_where_the_lengths_jump() -> None:
    """Sorted by length, a batch is closed (once it holds a few texts) before a text more
    than a tenth longer than its first: short rules are not padded to a paragraph's
    length. Every text is in one batch, in order, none over the size."""
    from charter.embed.minilm import _batches

    lengths = [5] * 6 + [40] * 12 + [90] * 5
    order = list(range(100, 100 + len(lengths)))
    got = _batches(lengths, order, 16)
    assert [i for batch in got for i in batch] == order
    assert got == [order[:6], order[6:18], order[18:]]
    assert all(len(b) <= 4 for b in _batches(lengths, order, 4))
    # a few texts stay together whatever their lengths (a batch is cut only once it
    # holds four)
    assert _batches([5, 50, 500], [0, 1, 2], 16) == [[0, 1, 2]]
