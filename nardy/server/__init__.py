"""The nardy game server: HTTP and WebSocket app, game service, clocks, accounts."""
