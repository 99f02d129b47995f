"""Outgoing mail through an SMTP server named by a URL (``NARDY_SMTP_URL``), with the standard library's smtplib.

``smtp://host:port`` speaks plain SMTP, ``smtp+starttls://host:port``
upgrades the connection with STARTTLS, ``smtps://host:port`` speaks TLS
from the start (port 465 by default); a user and password in the URL
(``smtps://user:pass@host``, percent-encoded) log in. :meth:`Mailer.send`
blocks on the network: the routes hand it to a worker thread after their
answer (FastAPI's background tasks), so the event loop never waits for a
mail server and the time of an answer does not tell whether a mail left.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Final
from urllib.parse import unquote, urlsplit

SCHEMES: Final = {"smtp": 25, "smtp+starttls": 587, "smtps": 465}
"""The URL schemes understood, with the port each uses when the URL names none."""
TIMEOUT_SECONDS: Final = 15.0
"""How long one connection to the mail server may wait for it."""

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SmtpServer:
    """Where and how mail is handed on: read from ``NARDY_SMTP_URL``."""

    scheme: str
    host: str
    port: int
    username: str | None
    password: str | None

    @classmethod
    def from_url(cls, url: str) -> SmtpServer:
        """The server ``url`` names; ``ValueError`` for another scheme or no host."""
        parts = urlsplit(url)
        if parts.scheme not in SCHEMES:
            raise ValueError(f"an SMTP URL starts with one of {', '.join(s + '://' for s in SCHEMES)}")
        if not parts.hostname:
            raise ValueError("an SMTP URL names a host: smtp://host:port")
        return cls(
            scheme=parts.scheme,
            host=parts.hostname,
            port=parts.port or SCHEMES[parts.scheme],
            username=None if parts.username is None else unquote(parts.username),
            password=None if parts.password is None else unquote(parts.password),
        )


class Mailer:
    """Sends plain-text mail from one sender address through one SMTP server."""

    def __init__(self, server: SmtpServer, sender: str) -> None:
        self.server = server
        self.sender = sender

    def send(self, to: str, subject: str, body: str) -> None:
        """Hand one message to the server; raises ``OSError`` or ``smtplib.SMTPException`` when it fails."""
        message = EmailMessage()
        message["From"] = self.sender
        message["To"] = to
        message["Subject"] = subject
        message.set_content(body)
        server = self.server
        context = ssl.create_default_context()
        connection: smtplib.SMTP
        if server.scheme == "smtps":
            connection = smtplib.SMTP_SSL(server.host, server.port, timeout=TIMEOUT_SECONDS, context=context)
        else:
            connection = smtplib.SMTP(server.host, server.port, timeout=TIMEOUT_SECONDS)
        with connection:
            if server.scheme == "smtp+starttls":
                connection.starttls(context=context)
            if server.username is not None:
                connection.login(server.username, server.password or "")
            connection.send_message(message)

    def send_quietly(self, to: str, subject: str, body: str) -> None:
        """:meth:`send`, logging a failure instead of raising it: what a background task runs."""
        try:
            self.send(to, subject, body)
        except (OSError, smtplib.SMTPException) as error:
            _log.warning("mail to %s not sent: %s", to.rpartition("@")[2], error)
