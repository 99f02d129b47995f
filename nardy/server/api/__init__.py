"""HTTP routers, one per resource; thin layers over the services."""
