"""Wrong passwords, and whom they can lock out: counted per account and address, and per address.

Usernames are public, so a count of wrong passwords per account alone would
let anyone keep a player out (of a tournament match, say) by typing wrong
passwords for their name. Instead a password check (a login, or the current
password asked by a change of password or a deletion) counts against:

* the account *from where it came*: its client address, or, when the
  request carries a live session of that very account (a known device), that
  session alone. Wrong passwords from elsewhere never lock out the owner's
  address, nor a device they are signed in on;
* its address, for any accounts (one address guessing at many), except from a
  known device.

The counts of an account are kept under its password epoch
(:func:`nardy.server.services.accounts.password_epoch`): a new password, set
by a reset link or a change, starts every count of the account afresh, from
every address. A check is counted against the account before the password is
compared, so parallel guesses cannot pass the limit together, and a match
forgets the count; the address's count grows only with real failures, so
that signing in to one's own account cannot wipe it.
"""

from __future__ import annotations

from dataclasses import dataclass

from nardy.server.api.ratelimit import Limit, RateLimited, RateLimiter
from nardy.server.settings import Settings


@dataclass(frozen=True)
class Guesser:
    """Who checks a password: the account (lower-cased name and password epoch), the address, a known device."""

    account: str
    address: str
    device: str | None = None
    """The digest of the request's session when it is a session of this account; ``None`` otherwise."""

    @classmethod
    def of(cls, username: str, epoch: str, *, address: str, device: str | None) -> Guesser:
        """Who checks the password of ``username`` (any letter case) whose password epoch is ``epoch``."""
        return cls(account=f"{username.lower()}#{epoch}", address=address, device=device)

    @property
    def place(self) -> str:
        """Where the checks come from: the known device, else the address."""
        return f"device:{self.device}" if self.device is not None else f"address:{self.address}"


class PasswordGuard:
    """The two counts of wrong passwords over the app's :class:`RateLimiter`."""

    def __init__(self, limiter: RateLimiter, settings: Settings) -> None:
        self._limiter = limiter
        self._per_account = Limit.of(
            "login-failures", settings.login_failures_per_account_address,
            "too many wrong passwords for this account from here",
        )
        self._per_address = Limit.of(
            "address-failures", settings.login_failures_per_address, "too many wrong passwords from your address",
        )

    def attempt(self, guesser: Guesser) -> None:
        """Count one check against the account from ``guesser``'s place, or raise 429 having counted nothing."""
        if guesser.device is None:
            self._limiter.require_room(self._per_address, guesser.address)
        self._limiter.spend(self._per_account, self._account_key(guesser))

    def failed(self, guesser: Guesser) -> None:
        """The password was wrong: count it against the address too (a known device's address is not counted)."""
        if guesser.device is None:
            try:
                self._limiter.spend(self._per_address, guesser.address)
            except RateLimited:
                pass  # a parallel failure took the last room: the next attempt is refused

    def succeeded(self, guesser: Guesser) -> None:
        """The password was right: forget the account's count from this place."""
        self._limiter.forget(self._per_account, self._account_key(guesser))

    @staticmethod
    def _account_key(guesser: Guesser) -> str:
        return f"{guesser.account}|{guesser.place}"
