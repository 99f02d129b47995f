"""The WebSocket edge: typed messages in and out, connections, versioned resync."""
