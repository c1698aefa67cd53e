"""cl100k counts: exact for text, free for nothing."""

from __future__ import annotations

import subprocess
import sys

from charter.tokens import count_many, count_tokens


def test_counts_are_the_tokenizers_and_empty_texts_are_zero() -> None:
    assert count_many(["hello world", "", "hello"]) == [2, 0, 1]
    assert count_tokens("") == 0 and count_many([]) == []


def test_empty_texts_never_build_the_tokenizer() -> None:
    """A project with no rule files compiles (at every session start) texts that are all
    empty: the tokenizer's tables, ~0.2 s in a fresh process, are not built for them."""
    probe = (
        "import sys\nfrom charter.tokens import count_many, count_tokens\n"
        "assert count_many(['', '']) == [0, 0] and count_tokens('') == 0\n"
        "print('toktok' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_a_few_texts_and_many_are_counted_alike() -> None:
    """A few texts are counted in the calling thread, many on every core: the counts are
    the same either way (a batch straddling the cut counts as its texts one by one)."""
    texts = [
        f"Never log request bodies in service {i}; use `redact()` ({i} times)." for i in range(150)
    ]
    one_by_one = [count_tokens(t) for t in texts]
    assert count_many(texts) == one_by_one
    assert count_many(texts[:5]) == one_by_one[:5]
    assert all(n > 10 for n in one_by_one)


def test_one_text_at_a_time_is_counted_as_batch_count_counts_it() -> None:
    """A few texts are counted by the encoding's own one-text count (a hundred times
    cheaper a call than ``batch_count``): the same counts, special tokens read as text."""
    import toktok

    from charter import tokens

    texts = [
        "Never commit `.env` files; rotate any key that leaked.",
        "<|endoftext|> is text here, as is <|fim_prefix|>",
        "日本語のテキストと emoji 🚀🔥",
        "   ",
        "a" * 3000,
        "- [SEC-1] Validate every `POST /api/v1/billing/*` body (L12-L14)\n",
    ]
    assert tokens._one_text_counter(toktok) is not None
    expected = toktok.batch_count(texts, tokens.ENCODING, threads=1)
    assert count_many(texts) == expected
    assert [count_tokens(t) for t in texts] == expected
