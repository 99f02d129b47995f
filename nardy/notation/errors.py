"""The error raised when text or JSON cannot be read as nardy notation.

It is a ``ValueError`` whose message names what is wrong (the key, the
token, the character), so the CLI and the server can show it unchanged.
Problems of the game itself keep the engine's own errors: a bad checker
count is :class:`nardy.rules.InvalidPositionError`, a play the roll does not
allow is :class:`nardy.rules.IllegalPlayError`.
"""


class NotationError(ValueError):
    """Text, an ID or a JSON document that is not well-formed notation."""
