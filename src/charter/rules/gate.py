"""Does a prompt carry a task at all?

Real sessions are full of prompts with no task in them ("yes", "try again", "ok, go
ahead"): retrieval still ranks every rule for them, and the prompt hook would inject the
top of a meaningless ranking, which then stays in the conversation for every later
request. A prompt is content-free when, after the index's own stop words, every word it
has is a word of a generic conversational reply; such a prompt gets no rules (the
constitution still applies, and anything already injected is still in the
conversation). No threshold, no embedding: a prompt with any other word — or with letters
of a script the index does not tokenize — goes through retrieval as before.
"""

from __future__ import annotations

from collections.abc import Iterable

#: Generic conversational replies (English; generic language, not drawn from any data).
#: Their words, tokenized as the rules' BM25 index tokenizes, make up the gate's list.
CONTENT_FREE = (
    "yes",
    "yeah",
    "yep",
    "no",
    "nope",
    "ok",
    "okay, go ahead",
    "sure",
    "continue",
    "go on",
    "keep going",
    "thanks, thank you",
    "try again",
    "retry",
    "sounds good",
    "looks good",
    "great, perfect, nice",
    "do it",
    "please proceed",
    "what do you think?",
    "wait",
    "and now?",
    "never mind",
)


def content_words(prompt_words: Iterable[str], reply_words: frozenset[str]) -> list[str]:
    """The prompt's words that are not conversational filler."""
    return [w for w in prompt_words if w not in reply_words]


def is_content_free(prompt: str, prompt_words: Iterable[str], reply_words: frozenset[str]) -> bool:
    """Only conversational words. Letters outside ASCII (another script) are words the
    index does not tokenize, so the gate cannot judge them and lets the prompt through."""
    if any(ch.isalpha() and not ch.isascii() for ch in prompt):
        return False
    return not content_words(prompt_words, reply_words)
