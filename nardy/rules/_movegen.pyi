from typing import Any

def walk(
    board: tuple[int, ...],
    moves: tuple[int, ...],
    hitting: bool,
    head_limit: int,
    ban_each_step: int,
    ban_at_end: int,
    stay_rule: bool,
    every_sequence: bool,
    descending: bool,
    route_bits: bytes,
    answer: int,
    opponent_off: int,
    /,
) -> list[Any]: ...
