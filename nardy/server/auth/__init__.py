"""Who a connection or request stands for, shared by the HTTP routers and the WebSocket layer.

The session cookie and the login it signs in (:mod:`.cookies`), and the
sign-out notices that end a session's WebSockets in every process
(:mod:`.signouts`). Both ``nardy.server.api`` and ``nardy.server.ws``
build on this package, so neither needs to import the other.
"""
