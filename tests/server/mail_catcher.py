"""A real SMTP server for tests (aiosmtpd on 127.0.0.1), keeping the messages it is handed, and the links in them."""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller

_LINK = re.compile(r"https?://\S+")


class MailCatcher:
    """The messages received, in order; ``url`` is the ``NARDY_SMTP_URL`` that reaches it."""

    def __init__(self, port: int) -> None:
        self.url = f"smtp://127.0.0.1:{port}"
        self.messages: list[EmailMessage] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's name
        """Keep the message (aiosmtpd's handler hook)."""
        message = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(message, EmailMessage)
        self.messages.append(message)
        return "250 Message accepted"

    def wait_for(self, count: int, timeout: float = 5.0) -> list[EmailMessage]:
        """The first ``count`` messages, once that many have come."""
        deadline = time.monotonic() + timeout
        while len(self.messages) < count:
            assert time.monotonic() < deadline, f"{len(self.messages)} messages came, not {count}"
            time.sleep(0.02)
        return self.messages[:count]

    def to(self, address: str) -> list[EmailMessage]:
        """The messages sent to ``address``."""
        return [m for m in self.messages if m["To"] == address]


def link_in(message: EmailMessage) -> str:
    """The one link in a plain-text message."""
    body = message.get_content()
    links = _LINK.findall(body)
    assert len(links) == 1, body
    return str(links[0])


@contextmanager
def mail_catcher() -> Iterator[MailCatcher]:
    """An SMTP server on a free port of 127.0.0.1 for the block's length."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    catcher = MailCatcher(port)
    controller = Controller(catcher, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield catcher
    finally:
        controller.stop()
