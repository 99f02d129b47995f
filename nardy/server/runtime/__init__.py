"""The process's own plumbing, below the services: work repeated every so many seconds, the garbage
collector's schedule and its probe, the limit on open descriptors, and the HTTP protocol's deadline for
request headers. It imports no other part of ``nardy.server``."""
