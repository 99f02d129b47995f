"""Server services: the logic behind the routers (accounts, games, clocks, dice, matchmaking)."""
