"""Checks a leakhound webhook (docs/siem.md, "Webhooks"): that it was
signed with the shared key, that it is fresh, and that its event was not
seen before. Standard library only; copy it into your receiver.

    verifier = WebhookVerifier(key=b"...the secret_file's first line...")
    outcome = verifier.check(headers["X-Leakhound-Signature"], body)
    # "new": process it; "repeat": answer 2xx, do not process it again;
    # anything else: answer 401 and drop it.
"""
import hashlib
import hmac
import json
import time

TOLERANCE_SECONDS = 300  # a signature older or newer than this is stale


class WebhookVerifier:
    def __init__(self, key, tolerance=TOLERANCE_SECONDS):
        self.key = key
        self.tolerance = tolerance
        self.seen = {}  # event id -> when it was first accepted

    def check(self, signature_header, body, now=None):
        """Returns "new", "repeat", "bad-signature" or "stale"."""
        now = time.time() if now is None else now
        fields = dict(part.split("=", 1) for part in
                      (signature_header or "").split(",") if "=" in part)
        try:
            stamp = int(fields["t"])
            given = fields["v1"]
        except (KeyError, ValueError):
            return "bad-signature"
        expected = hmac.new(self.key, str(stamp).encode() + b"." + body,
                            hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, given):
            return "bad-signature"
        if abs(now - stamp) > self.tolerance:
            return "stale"
        # Delivery is at least once: the same event may come again (after a
        # restart), and a replayed request carries an event already seen.
        event_id = json.loads(body)["id"]
        for old in [i for i, t in self.seen.items()
                    if now - t > 2 * self.tolerance]:
            del self.seen[old]
        if event_id in self.seen:
            return "repeat"
        self.seen[event_id] = now
        return "new"
