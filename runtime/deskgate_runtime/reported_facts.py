"""The gate facts this runtime last reported to the worker, under a token.

The worker may judge an input action on facts it already has (the last ones reported: by
`gate_facts`, or after its previous input op) instead of asking for them first, and send the
input with `"guard": {..., "facts": token}`. Under the guard's server grab the runtime reads the
facts again, exactly as `gate_facts` does, and sends only if everything the gates judge by is
what that token stands for: the window list, the focus, the pointer and what is under it, the
held buttons (and, as always, the guard's surfaces at its points). One round trip per action
instead of two, and the verdict is on facts the server confirmed at the moment of sending.

Only the last report is kept: a token from before it no longer matches anything.

An op judged on a token answers with the facts after it as compactly as they allow: only the
token when nothing changed; the token with the pointer's parts when nothing else did (a move, a
click); else the whole facts.
"""
import os

TOKEN_MAX = 64
POINTER_PARTS = ("cursor", "under_pointer", "buttons")


def _core(facts):
    """What a token stands for: the facts without the per-point surfaces (the guard has those)."""
    return {k: v for k, v in facts.items() if k not in ("at", "token")}


class ReportedFacts:
    def __init__(self):
        # A process-unique prefix: a token of a runtime that restarted never matches a new one.
        self.nonce = os.urandom(6).hex()
        self.counter = 0
        self.token = None
        self.core = None

    def report(self, facts):
        """Record `facts` as reported and return them with their token (the same token as
        before when nothing the gates judge by changed)."""
        core = _core(facts)
        if self.token is None or core != self.core:
            self.counter += 1
            self.token, self.core = f"{self.nonce}-{self.counter}", core
        return {**facts, "token": self.token}

    def answer(self, judged, facts):
        """Record `facts` (read after an op judged on token `judged`) and return what the op
        answers with: {"token"} when they are what `judged` stands for, {"token", "cursor",
        "under_pointer", "buttons"} when only the pointer's parts changed, else the facts."""
        before = self.core if judged == self.token else None
        reported = self.report(facts)
        if reported["token"] == judged:
            return {"token": judged}
        if before is not None and all(before[k] == v for k, v in self.core.items()
                                      if k not in POINTER_PARTS):
            return {"token": reported["token"], **{k: reported[k] for k in POINTER_PARTS}}
        return reported

    def holds(self, token, facts):
        """Whether `facts` (read now) are what `token` was reported for."""
        return token is not None and token == self.token and _core(facts) == self.core

    def unchanged_since(self, token):
        """Whether `token` is still the last report (post-action: send only the token back)."""
        return token is not None and token == self.token
