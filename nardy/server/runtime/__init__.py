"""The process's own plumbing, beside the game: the garbage collector's schedule and its probe, the limit on
open descriptors, and the HTTP protocol's deadline for request headers."""
