"""Prohibitions that yield to the user's say-so: "do not run `git push` unless the user
asks", "never run `terraform apply` without approval", "ask before running `npm publish`".

A condition the guardrail cannot see makes a prohibition advice (:mod:`negation`): "never
run `X` against production" is not held. One condition is different: the user's own
consent. Claude Code's PreToolUse can ask the user before a call runs
(``permissionDecision: "ask"``), and that question *is* the consent the rule waits for.
So a sentence whose only condition is consent is read twice: as written (the condition
keeps it from being denied) and as the same sentence without it (the shadow). What the
shadow forbids is put to the user instead of denied.

The shadow is built from the sentence's own words: the consent phrase is cut out
("unless explicitly requested", "without asking the user first"), and a positive form
is turned into the prohibition it means ("ask before running `X`" and "only run `X` when
the user asks" read as "never run `X`"). Everything else the sentence says still has to
pass the ordinary reading: "never run `X` in CI unless asked" keeps its "in CI" and is
not held. The word lists are plain English (who may consent, the verbs of asking and
approving), not tuned to any rule file.
"""

from __future__ import annotations

import re

from charter.rules.model import Rule
from charter.rules.negation import clauses, negated

#: Who may give consent: the user (or a human standing for them), never the agent.
_WHO = (
    r"(?:the\s+|a\s+|your\s+|their\s+)?(?:user|human|developer|maintainer|owner|operator|"
    r"requester|reviewer|person|people)s?|i|we|me|us|someone|somebody|they"
)
#: What consenting is: asking, telling, approving …
_ASKS = (
    r"(?:explicitly\s+|specifically\s+|expressly\s+|directly\s+|actually\s+)?"
    r"(?:asks?|asked|requests?|requested|tells?|told|instructs?|instructed|approves?|"
    r"approved|confirms?|confirmed|permits?|permitted|authori[sz]es?|authori[sz]ed|"
    r"wants?|wanted|says?\s+so|said\s+so|okays?|ok'?d|agrees?|agreed)"
)
#: What consent is called as a noun; "request" and "instruction" only as someone's or
#: as explicit ("without the request timeout" sets no consent).
_CONSENT_NOUN = (
    r"(?:(?:explicit|express|prior|written|direct|clear)\s+)?(?:approval|permission|consent|"
    r"confirmation|sign-?off|go-?ahead|authori[sz]ation)s?"
)
_ASKED_NOUN = r"(?:request|instruction|ok|okay)s?"
#: The consent condition, from its first word; what follows up to the clause's end or
#: the next code span goes with it ("… unless the user explicitly asks you to do so").
_CONDITION = re.compile(
    r"\b(?:"
    # unless explicitly requested / unless you are asked (to) / unless told to
    r"unless\s+(?:(?:you\s+are|you're|you\s+have\s+been|you've\s+been|it\s+is|it's|it\s+was|"
    r"it\s+has\s+been|they\s+are|this\s+is)\s+)?(?:explicitly\s+|specifically\s+|expressly\s+|"
    r"directly\s+)?(?:asked|requested|told|instructed|approved|permitted|authori[sz]ed|"
    r"confirmed)\b"
    # unless the user (explicitly) asks / unless I say so / unless requested by the user
    rf"|unless\s+(?:{_WHO})\s+(?:has\s+|have\s+|had\s+|does\s+|do\s+)?{_ASKS}\b"
    # unless / without (the user's) (explicit) approval, permission, request …
    rf"|(?:unless|except|without|absent)\s+(?:with\s+|on\s+|at\s+|upon\s+|by\s+)?"
    r"(?:(?:an?|the)\s+)?(?:(?:explicit|express|prior|written|direct|clear)\s+)?"
    rf"(?:(?:{_WHO})(?:'s|’s|')?\s+)?" + _CONSENT_NOUN + r"\b"
    rf"|(?:unless|except|without|absent)\s+(?:with\s+|on\s+|at\s+|upon\s+|by\s+)?"
    rf"(?:(?:{_WHO})(?:'s|’s|')\s+(?:(?:explicit|express|direct)\s+)?|(?:an?\s+|the\s+)?"
    rf"(?:explicit|express|direct)\s+){_ASKED_NOUN}\b"
    # without asking (the user) (first) / without being asked (to)
    r"|without\s+(?:first\s+)?(?:asking|checking\s+with|confirming\s+with|consulting|"
    r"being\s+(?:explicitly\s+)?(?:asked|told|instructed)|having\s+been\s+(?:asked|told))\b"
    # unprompted / unasked: without being asked; autonomously: without the user;
    # blindly: without a look, which the user's answer gives
    r"|\b(?:unprompted|unasked|autonomously|blindly)\b"
    r")",
    re.IGNORECASE,
)
#: Where the condition's words end: punctuation, the next span, or the clause's end.
_CONDITION_END = re.compile(r"[`:;.!?,()\[\]—–]|\s-\s|$")
#: A positive form whose act is the prohibition it means: "ask (the user) (first) before
#: running `X`", "check with the user before `X`", "get approval before using `X`".
_ASK_BEFORE = re.compile(
    r"^(?P<lead>\W*)(?:(?:always|please|still|also|just|you\s+must|you\s+should|must|"
    r"should)\s+)*"
    r"(?:ask|check\s+with|confirm\s+with|consult|get|obtain|seek)\s+"
    rf"(?:(?:{_WHO}|for|first|explicit|approval|permission|consent|confirmation|the|an?|"
    r"human|user's|users'|sign-?off|go-?ahead)\s+){0,5}before\s+",
    re.IGNORECASE,
)
#: "Only run `X` when the user asks" / "only use `X` if explicitly requested" / "only
#: run `X` on request": a clause opening with "only", its condition consent.
_ONLY = re.compile(
    r"^(?P<lead>\W*(?:(?:you|we|please|agents?)\s+)?(?:may\s+|should\s+)?)only\s+", re.IGNORECASE
)
_ONLY_CONDITION = re.compile(
    r"\b(?:when|if|after|once|upon|on)\s+(?:"
    rf"(?:{_WHO})\s+(?:has\s+|have\s+|does\s+|do\s+)?{_ASKS}"
    r"|(?:(?:it\s+is|it's|you\s+are|you're|you've\s+been|you\s+have\s+been)\s+)?"
    r"(?:explicitly\s+|specifically\s+|expressly\s+)?(?:asked|requested|told|instructed|"
    r"approved|permitted)"
    rf"|(?:(?:{_WHO})(?:'s|’s|')?\s+|an?\s+|the\s+)?"
    + _CONSENT_NOUN
    + rf"|(?:(?:{_WHO})(?:'s|’s|')\s+|(?:an?\s+|the\s+)?(?:explicit|express|direct)\s+)?"
    + _ASKED_NOUN
    + r")\b",
    re.IGNORECASE,
)


def _shadow_sentence(sentence: str) -> str:
    """The sentence without its consent condition, or itself when it has none."""
    found = _CONDITION.search(sentence)
    if found is not None:
        return _shadow_sentence(_cut_at(sentence, found.start(), found.end()))
    ask = _ASK_BEFORE.match(sentence)
    if ask is not None:
        return f"{ask.group('lead')}Never {sentence[ask.end() :]}"
    only = _ONLY.match(sentence)
    condition = _ONLY_CONDITION.search(sentence) if only is not None else None
    if only is not None and condition is not None:
        turned = f"{only.group('lead')}Never {sentence[only.end() :]}"
        moved = len(turned) - len(sentence)
        return _cut_at(turned, condition.start() + moved, condition.end() + moved)
    return sentence


def _cut_at(text: str, start: int, end: int) -> str:
    """``text`` without the condition at ``start:end`` and the words after it up to
    where the condition ends (punctuation, the next span, the clause's end)."""
    stop_match = _CONDITION_END.search(text, end)
    stop = stop_match.start() if stop_match else len(text)
    head = text[:start].rstrip()
    if head.endswith(","):
        head = head[:-1]
    return f"{head}{' ' if text[stop : stop + 1] == '`' else ''}{text[stop:]}"


def consent_shadow(text: str) -> str | None:
    """``text`` with each sentence's consent condition taken out (see the module
    docstring), or None when no sentence has one."""
    out, last, changed = [], 0, False
    for start, end in clauses(text):
        sentence = text[start:end]
        shadow = _shadow_sentence(sentence)
        changed = changed or shadow != sentence
        out.append(text[last:start])
        out.append(shadow)
        last = end
    out.append(text[last:])
    return "".join(out) if changed else None


#: A heading that puts what it lists to the user: "Restricted Commands (Require
#: Approval)", "## Mutate (ask first)", "🛑 REQUIRES APPROVAL (Ask First)", said at its
#: end, in brackets or alone ("… (ask first if unsure)" sets a condition of its own).
_APPROVAL_HEADING = re.compile(
    r"(?:^|[\s(])(?:(?:requires?|needs?)\s+(?:(?:the\s+)?user'?s?\s+|explicit\s+|prior\s+)?"
    r"(?:approval|confirmation|permission|consent)|approval\s+required|ask\s+first|"
    r"ask\s+before(?:\s+(?:running|using|executing|changing|editing))?)[\s)*_:.!]*$",
    re.IGNORECASE,
)


def consent_heading(rule: Rule) -> bool:
    """Whether one of the two headings nearest ``rule`` (the document's title aside) puts
    its commands to the user: it asks for approval ("(Require Approval)", "ask first"),
    or forbids until the user consents ("Dangerous Commands (FORBIDDEN unless explicitly
    approved)")."""
    path = [h.strip() for h in (rule.source.section or "").split(" > ") if h.strip()]
    near = path[1:][-2:] if len(path) > 2 else path[-2:]
    for heading in near:
        plain = re.sub(r"[*_`]+", "", heading).strip()
        if _APPROVAL_HEADING.search(plain):
            return True
        if negated(plain) and consent_shadow(plain) is not None:
            return True
    return False
