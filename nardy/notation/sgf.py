"""Smart Game Format (SGF, ``GM[6]``: backgammon) as GNU Backgammon saves and loads matches.

A match is a collection of game trees, one per game, each a root node and
one node per action (gnubg's ``save match`` / ``load match``)::

    (;FF[4]GM[6]CA[UTF-8]AP[nardy]MI[length:5][game:0][ws:0][bs:0]PW[ann]PB[bob]RU[Crawford]RE[W+1]
    ;W[31fehe]
    ;B[52aclq]
    ;W[double]
    ;B[drop])

**Root.** ``MI``: match length (0 for money play), the game's number from 0
and the score it began at, White's (``ws``) and Black's (``bs``). ``PW`` and
``PB``: the players. ``RU``: the rules, colon separated: ``NoCube``,
``Crawford`` (every match), ``CrawfordGame``, ``Jacoby``, and ours, which
gnubg passes over: ``Beavers``, ``AutoDoubles=2``, ``BackgammonValue=2``.
``RE[W+2]``: who won the game and the points, ``R`` after the points when by
resignation. ``VA[georgian]`` (ours) names a variant other than backgammon;
for nackgammon and hypergammon ``RU`` also holds the word gnubg writes and
reads for its variation, ``Nackgammon`` or ``Hypergammon3``
(:mod:`nardy.notation.gnubg_variations`), which names the variant of a root
without ``VA``.

**Seats.** Seat 0 is White (``W``, ``PW``), seat 1 Black (``B``, ``PB``).

**Moves.** ``W[31fehe]``: the dice, then each checker step (one die each)
as a from and a to letter. Letters ``a``..``x`` are the points 1..24 as
White numbers them (White's point *n* is ``a`` + *n* - 1; Black's point *n*
is ``x`` - *n* + 1), ``y`` is the bar and ``z`` off. ``W[66]`` is a roll
that cannot be played. The opening roll is the first roll of the player it
lets move, that player's die first. ``PL[W]DI[52]`` is a roll not played at
once (a resignation or a timeout came first); its move follows as
``W[52...]`` with the same dice. ``W[double]``, ``B[take]``, ``B[drop]``,
``B[beaver]`` (ours).

**What only nardy has** is a node of our own ``NA`` property, which gnubg
passes over, holding the same words as the ``.mat`` comment lines of
:mod:`nardy.notation.matfile`: ``NA[opening 4 4]`` (a tied opening roll),
``NA[timeout 1]``, ``NA[forfeit 0]``, ``NA[resign 1 gammon]`` (an offer
declined, still open, or whose kind ``RE``'s points would not tell) and
``NA[decline 0]``, and ``NA[tie]`` after the play that tied a plakoto game
(both mothers pinned), which then starts again in the same tree. An accepted
resignation is ``RE[W+2R]``, as in gnubg.

Only games on the backgammon board fit (plakoto's pins too: a move names
each step, and a checker landing on a lone opposing one pins it): long
nardy, fevga and tavli (whose third game is fevga) raise
:class:`NotationError`, written or read: a root naming one of them is
refused, since its letters name the short board's points. Reading follows
each tree's main line (gnubg saves no variations) and passes over
properties it does not use (gnubg's analysis, comments); it never decides
legality itself: moves are read with :func:`nardy.notation.parse_play` and
every action goes through the rules.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, NoReturn

from nardy.notation.errors import NotationError
from nardy.notation.gnubg_variations import sgf_rule, variant_of_sgf_rule
from nardy.notation.matfile import (
    _Builder,
    _Cube,
    _Entry,
    _CUBE_KINDS,
    _fact_text,
    _read_fact,
    _game_entries,
    _GameEntries,
    _Roll,
    _Tie,
    _Win,
    TIE_WORD,
)
from nardy.notation.transcript import Transcript
from nardy.rules import BAR, OFF, GameOptions, RulesError, Variant, find_variant

GAME_NUMBER: Final = 6
"""``GM[6]``: backgammon."""

MAX_NESTING: Final = 100
"""The deepest a game tree may sit among variations: gnubg saves none, and deeper nesting is refused with
its line rather than read by ever deeper recursion."""

_COLOURS: Final = ("W", "B")
_MOVE: Final = re.compile(r"([1-6])([1-6])((?:[a-z]{2})*)")
_RESULT: Final = re.compile(r"([WB])\+(\d+)(R?)", re.IGNORECASE)

# ---------------------------------------------------------------- writing


def holds(variant: Variant) -> bool:
    """Whether SGF can hold games of ``variant``: its backgammon board is the short board only, for every
    game of a match (tavli's fevga is played on the long board)."""
    return all(game.board == "short" for game in variant.game_variants)


def _long_board(variant: Variant) -> str:
    """Why SGF cannot hold ``variant``'s games."""
    return f"SGF holds backgammon-board games only; {variant.name} is played on the long board"


def transcript_to_sgf(transcript: Transcript) -> str:
    """The SGF collection of ``transcript``: one game tree per game (see the module docstring).

    Raises :class:`NotationError` for a transcript of the long board (long
    nardy, fevga, and tavli, whose third game is fevga), which SGF's
    backgammon board cannot hold, or one that does not replay.
    """
    games = _game_entries(transcript)
    variant = find_variant(transcript.variant)
    if not holds(variant):
        raise NotationError(_long_board(variant))
    return "".join(_game_tree(transcript, variant, index, game) for index, game in enumerate(games))


def _game_tree(transcript: Transcript, variant: Variant, index: int, game: _GameEntries) -> str:
    root = [
        "FF[4]", f"GM[{GAME_NUMBER}]", "CA[UTF-8]", "AP[nardy]",
        f"MI[length:{transcript.length}][game:{index}][ws:{game.score[0]}][bs:{game.score[1]}]",
        f"PW[{_escape(transcript.players[0])}]", f"PB[{_escape(transcript.players[1])}]",
    ]
    if variant.name != "backgammon":
        root.append(f"VA[{variant.name}]")
    rules = _rules(transcript.options, transcript.length, game.crawford)
    variation = sgf_rule(variant.name)
    if variation is not None:
        rules.append(variation)
    if rules:
        root.append(f"RU[{':'.join(rules)}]")
    root += [_result(entry) for entry in game.entries if isinstance(entry, _Win)]
    nodes = [_node(entry) for entry in game.entries if not isinstance(entry, _Win)]
    return "(;" + "".join(root) + "".join(f"\n;{node}" for node in nodes) + ")\n"


def _rules(options: GameOptions, length: int, crawford_game: bool) -> list[str]:
    rules = []
    if not options.cube:
        rules.append("NoCube")
    if length:
        rules.append("Crawford")
    if crawford_game:
        rules.append("CrawfordGame")
    if options.jacoby:
        rules.append("Jacoby")
    if options.beavers:
        rules.append("Beavers")
    if options.automatic_doubles:
        rules.append(f"AutoDoubles={options.automatic_doubles}")
    if options.backgammon_value != 3:
        rules.append(f"BackgammonValue={options.backgammon_value}")
    return rules


def _result(entry: _Win) -> str:
    return f"RE[{_COLOURS[entry.player]}+{entry.points}{'R' if entry.resigned else ''}]"


def _node(entry: _Entry) -> str:
    if isinstance(entry, _Roll):
        colour, dice = _COLOURS[entry.player], f"{entry.dice[0]}{entry.dice[1]}"
        if entry.steps is None and entry.can_move:
            return f"PL[{colour}]DI[{dice}]"
        ends = [point for step in entry.steps or () for point in (step.source, step.target)]
        letters = "".join(_letter(point, entry.player) for point in ends)
        return f"{colour}[{dice}{letters}]"
    if isinstance(entry, _Cube):
        return f"{_COLOURS[entry.player]}[{entry.kind}]"
    assert not isinstance(entry, _Win)
    if isinstance(entry, _Tie):
        return f"NA[{TIE_WORD}]"
    return f"NA[{_escape(_fact_text(entry.action))}]"


def _letter(point: int, player: int) -> str:
    """The SGF letter of ``player``'s ``point`` (1..24, the bar or off)."""
    if point == BAR:
        return "y"
    if point == OFF:
        return "z"
    return chr(ord("a") + (point - 1 if player == 0 else 24 - point))


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


# ---------------------------------------------------------------- reading


def transcript_from_sgf(text: str) -> Transcript:
    """The transcript an SGF collection of backgammon games records, every action applied through the rules.

    The match (variant, length, options, players) is read from the first
    game's root. Raises :class:`NotationError` naming the line that is
    malformed, that names a variant of the long board (as
    :func:`transcript_to_sgf` refuses to write one), or that the rules refuse.
    """
    trees = _Parser(text.lstrip("\ufeff")).collection()
    if not trees:
        raise NotationError("not an SGF file: no game tree '(;...)'")
    first = trees[0][0]
    variant, length, options = _match_of(first)
    builder = _Builder(variant, length, options, f"line {first.line}")
    players = (first.value("PW") or "", first.value("PB") or "")
    for tree in trees:
        _read_game(builder, tree, variant, length)
    return builder.transcript(players)


def _match_of(root: _Node) -> tuple[str, int, GameOptions]:
    where = f"line {root.line}"
    game_type = root.value("GM") or str(GAME_NUMBER)
    if game_type != str(GAME_NUMBER):
        raise NotationError(f"{where}: GM[{game_type}] is not backgammon, GM[{GAME_NUMBER}]")
    variant = _variant_of(root)
    if not holds(variant):  # its letters are the short board's points: they cannot name the long board's
        raise NotationError(f"{where}: {_long_board(variant)}")
    info = _match_info(root)
    rules = set((root.value("RU") or "").split(":"))
    numbers = {name: value for name, _, value in (rule.partition("=") for rule in rules) if value}
    for name, value in numbers.items():
        if not value.isdigit():
            raise NotationError(f"{where}: RU[{name}={value}] needs a whole number")
    options = GameOptions(
        cube=variant.cube_allowed and "NoCube" not in rules,
        jacoby="Jacoby" in rules,
        automatic_doubles=int(numbers.get("AutoDoubles", 0)),
        backgammon_value=int(numbers.get("BackgammonValue", 3)),
        beavers="Beavers" in rules,
    )
    return variant.name, info.get("length", 0), options


def _variant_of(root: _Node) -> Variant:
    """The variant ``VA`` names, else the gnubg variation an ``RU`` word names, else backgammon.

    A root naming both must name the same game.
    """
    where = f"line {root.line}"
    try:
        variant = find_variant(root.value("VA") or "backgammon")
        variations = {found for word in (root.value("RU") or "").split(":") if (found := variant_of_sgf_rule(word))}
    except (RulesError, NotationError) as error:
        raise NotationError(f"{where}: {error}") from None
    named = variations | ({variant.name} if root.value("VA") else set())
    if len(named) > 1:
        raise NotationError(f"{where}: VA and RU name different variants: {', '.join(sorted(named))}")
    return find_variant(named.pop()) if named else variant


def _match_info(root: _Node) -> dict[str, int]:
    """The ``MI`` values (``length``, ``game``, ``ws``, ``bs``) that are whole numbers."""
    info = {}
    for value in root.properties.get("MI", []):
        name, _, number = value.partition(":")
        if number.isdigit():
            info[name] = int(number)
    return info


def _read_game(builder: _Builder, tree: Sequence[_Node], variant: str, length: int) -> None:
    root = tree[0]
    where = f"line {root.line}"
    game_variant, game_length, _ = _match_of(root)
    if game_variant != variant or game_length != length:
        raise NotationError(f"{where}: every game of a match has the same variant and match length")
    info = _match_info(root)
    builder.start_game(where)
    if "ws" in info and "bs" in info:
        builder.check_score((info["ws"], info["bs"]), where)
    for node in tree[1:]:
        _read_node(builder, node)
    result = root.value("RE")
    if result:
        won = _RESULT.fullmatch(result)
        if won is None:
            raise NotationError(f"{where}: RE[{result}] is not a result like RE[W+2] or RE[B+1R]")
        player = _COLOURS.index(won[1].upper())
        builder.wins(player, int(won[2]), f"{where} (RE)", resigned=bool(won[3]))


def _read_node(builder: _Builder, node: _Node) -> None:
    where = f"line {node.line}"
    moves = [colour for colour in _COLOURS if colour in node.properties]
    if len(moves) > 1:
        raise NotationError(f"{where}: a node holds one move, got both W and B")
    if moves:
        player = _COLOURS.index(moves[0])
        _read_move(builder, player, node.value(moves[0]) or "", where)
    elif "DI" in node.properties:
        colour = node.value("PL") or ""
        if colour not in _COLOURS:
            raise NotationError(f"{where}: DI needs PL[W] or PL[B] to say who rolled")
        dice = node.value("DI") or ""
        if not re.fullmatch(r"[1-6][1-6]", dice):
            raise NotationError(f"{where}: DI[{dice}] is not two dice 1-6")
        builder.roll(_COLOURS.index(colour), (int(dice[0]), int(dice[1])), None, where)
    elif "NA" in node.properties:
        _read_fact(builder, node.value("NA") or "", where)


def _read_move(builder: _Builder, player: int, value: str, where: str) -> None:
    if value in _CUBE_KINDS:
        builder.cube(player, _CUBE_KINDS[value], where)
        return
    move = _MOVE.fullmatch(value)
    if move is None:
        raise NotationError(f"{where}: cannot read the move {value!r}; expected dice and letter pairs like 31hefe")
    letters = move[3]
    text = " ".join(
        f"{_point_name(letters[i], player, where)}/{_point_name(letters[i + 1], player, where)}"
        for i in range(0, len(letters), 2)
    )
    builder.roll(player, (int(move[1]), int(move[2])), text or None, where)


def _point_name(letter: str, player: int, where: str) -> str:
    """The move-text name (``bar``, ``off``, ``1``..``24``) of ``player``'s point written as ``letter``."""
    if letter == "y":
        return "bar"
    if letter == "z":
        return "off"
    index = ord(letter) - ord("a")
    if not 0 <= index < 24:
        raise NotationError(f"{where}: {letter!r} is not a point; points are a-x, the bar y, off z")
    return str(index + 1 if player == 0 else 24 - index)


# ---------------------------------------------------------------- the SGF syntax


@dataclass
class _Node:
    """A node's properties (identifier -> values, unescaped) and the line it starts on."""

    line: int
    properties: dict[str, list[str]] = field(default_factory=dict)

    def value(self, name: str) -> str | None:
        values = self.properties.get(name)
        return values[0] if values else None


class _Parser:
    """SGF (FF[4]) read into game trees, each as the nodes of its main line.

    Collection = GameTree+; GameTree = "(" Node+ GameTree* ")"; Node = ";"
    Property*; Property = identifier, then one or more "[value]". Lower-case
    letters in an identifier are dropped, as FF[3] readers do. A tree nested
    more than :data:`MAX_NESTING` deep is refused.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.position = 0
        self.newlines = [index for index, char in enumerate(text) if char == "\n"]

    def collection(self) -> list[list[_Node]]:
        trees = []
        while self._skip_space() and self.text[self.position] == "(":
            trees.append(self._tree(1))
        if self.position < len(self.text):
            self._fail("expected '(' to begin a game tree")
        return trees

    def _tree(self, depth: int) -> list[_Node]:
        if depth > MAX_NESTING:
            self._fail(f"game trees nested more than {MAX_NESTING} deep")
        self.position += 1
        nodes: list[_Node] = []
        while self._skip_space() and self.text[self.position] == ";":
            nodes.append(self._node())
        if not nodes:
            self._fail("a game tree begins with a node ';'")
        variations = []
        while self._skip_space() and self.text[self.position] == "(":
            variations.append(self._tree(depth + 1))
        if not self._skip_space() or self.text[self.position] != ")":
            self._fail("expected ')' to close the game tree")
        self.position += 1
        return nodes + (variations[0] if variations else [])

    def _node(self) -> _Node:
        node = _Node(self._line())
        self.position += 1
        while self._skip_space() and self.text[self.position].isalpha():
            start = self.position
            while self.position < len(self.text) and self.text[self.position].isalpha():
                self.position += 1
            name = "".join(char for char in self.text[start:self.position] if char.isupper())
            if not name:
                self._fail("a property identifier needs an upper-case letter")
            values = node.properties.setdefault(name, [])
            while self._skip_space() and self.text[self.position] == "[":
                values.append(self._value())
            if not values:
                self._fail(f"property {name} has no value '[...]'")
        return node

    def _value(self) -> str:
        self.position += 1
        chars = []
        while self.position < len(self.text) and self.text[self.position] != "]":
            char = self.text[self.position]
            if char == "\\" and self.position + 1 < len(self.text):
                self.position += 1
                char = self.text[self.position]
                if char == "\n":
                    char = ""
            chars.append(char)
            self.position += 1
        if self.position >= len(self.text):
            self._fail("a property value '[' is never closed")
        self.position += 1
        return "".join(chars)

    def _skip_space(self) -> bool:
        """Move past white space; True while text remains."""
        while self.position < len(self.text) and self.text[self.position].isspace():
            self.position += 1
        return self.position < len(self.text)

    def _line(self) -> int:
        return bisect.bisect_left(self.newlines, self.position) + 1

    def _fail(self, problem: str) -> NoReturn:
        raise NotationError(f"line {self._line()}: {problem}")


__all__ = ["GAME_NUMBER", "MAX_NESTING", "transcript_from_sgf", "transcript_to_sgf"]
