"""Provably fair dice: the published scheme, its verification and the ``verify-dice`` command."""

from __future__ import annotations

import doctest
import hashlib
import hmac
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nardy.cli import main
from nardy.notation import fair_dice
from nardy.notation.dice_record import RecordedGame, RecordedRoll, RecordError, parse_record, record_to_dict, verify_record
from nardy.notation.fair_dice import (
    check_client_seed,
    commitment,
    derive_dice,
    dice_from_bytes,
    die_from_byte,
    digest_blocks,
)
from nardy.server.services.dice import (
    DiceSource,
    ProvablyFairDice,
    ScriptedDice,
    ScriptExhaustedError,
    dice_statistics,
)

SEED = "9f2c4e1a7b3d5f60" * 4
CLIENT_SEEDS = ("alice's seed", "B0b!")
CHI_SQUARE_9999 = 25.74
"""The 99.99% quantile of the chi-square distribution with 5 degrees of freedom."""


def reference_dice(seed: str, client_seeds: tuple[str, str], number: int) -> tuple[tuple[int, int], int]:
    """The scheme written out from the module docstring alone; also counts the skipped bytes."""
    key = bytes.fromhex(seed)
    message = f"{client_seeds[0]}:{client_seeds[1]}:{number}".encode()
    dice_kept: list[int] = []
    skipped = 0
    block = 0
    while len(dice_kept) < 2:
        suffix = f":{block}".encode() if block else b""
        for byte in hmac.new(key, message + suffix, hashlib.sha256).digest():
            if byte >= 252:
                skipped += 1
            elif len(dice_kept) < 2:
                dice_kept.append(byte % 6 + 1)
        block += 1
    return (dice_kept[0], dice_kept[1]), skipped


def a_record(games: int = 2, rolls: int = 12) -> dict[str, Any]:
    """A finished match record produced by the production source, as the server would export it."""
    source = ProvablyFairDice()
    recorded = []
    for game in range(1, games + 1):
        seed = source.new_seed()
        client_seeds = (f"p0-game{game}", f"p1-game{game}")
        recorded.append(
            RecordedGame(
                number=game,
                seed=seed,
                seed_hash=commitment(seed),
                client_seeds=client_seeds,
                rolls=tuple(
                    RecordedRoll(number, source.roll(seed, client_seeds, number), "opening" if number == 0 else "roll")
                    for number in range(rolls)
                ),
            )
        )
    return json.loads(json.dumps(record_to_dict(recorded)))  # type: ignore[no-any-return]


def test_module_examples() -> None:
    """The docstring examples are the published test vector, so they must stay true."""
    failures, tried = doctest.testmod(fair_dice)
    assert tried > 0 and failures == 0


def test_known_answer_vector_matches_an_independent_implementation() -> None:
    """Numbers 0..200 agree with the scheme written out from the docstring, skipped bytes included."""
    skipped = 0
    for number in range(201):
        expected, skipped_here = reference_dice(SEED, CLIENT_SEEDS, number)
        assert derive_dice(SEED, CLIENT_SEEDS, number) == expected, number
        assert ProvablyFairDice().roll(SEED, CLIENT_SEEDS, number) == expected
        skipped += skipped_here
    assert skipped > 0, "the vector should exercise the rejection of bytes >= 252"


def test_fixed_vector() -> None:
    """A frozen vector: changing the scheme breaks every published record, so it must be deliberate."""
    rolls = [derive_dice(SEED, CLIENT_SEEDS, number) for number in range(8)]
    assert rolls == [(4, 6), (2, 5), (2, 6), (4, 4), (6, 4), (2, 6), (6, 2), (2, 2)]


def test_blocks_after_the_first_append_the_block_number() -> None:
    key = bytes.fromhex(SEED)
    blocks = digest_blocks(SEED, CLIENT_SEEDS, 7)
    message = b"alice's seed:B0b!:7"
    assert next(blocks) == hmac.new(key, message, hashlib.sha256).digest()
    assert next(blocks) == hmac.new(key, message + b":1", hashlib.sha256).digest()
    assert next(blocks) == hmac.new(key, message + b":2", hashlib.sha256).digest()


def test_bytes_from_252_are_skipped() -> None:
    """252..255 would favour faces 1..4; they give no die and the next byte is read."""
    assert [die_from_byte(byte) for byte in range(246, 256)] == [1, 2, 3, 4, 5, 6, None, None, None, None]
    assert dice_from_bytes([255, 252, 5, 253, 6, 0]) == (6, 1)
    counts = [sum(1 for byte in range(256) if die_from_byte(byte) == face) for face in range(1, 7)]
    assert counts == [42] * 6


def test_a_block_of_rejected_bytes_continues_into_the_next_block() -> None:
    block_zero = bytes([255] * 31 + [4])
    block_one = bytes([254, 12, 99])
    assert dice_from_bytes(block_zero + block_one) == (5, 1)
    with pytest.raises(ValueError, match="ran out"):
        dice_from_bytes(block_zero)


@given(seed=st.binary(min_size=32, max_size=32), number=st.integers(min_value=0, max_value=10**6))
def test_every_die_shows_one_to_six(seed: bytes, number: int) -> None:
    first, second = derive_dice(seed.hex(), CLIENT_SEEDS, number)
    assert 1 <= first <= 6 and 1 <= second <= 6


def test_chi_square_of_sixty_thousand_dice_is_sane() -> None:
    """A fixed seed, so the test is deterministic; the bound is the 99.99% quantile."""
    stats = dice_statistics(derive_dice(SEED, CLIENT_SEEDS, number) for number in range(30_000))
    assert stats["dice"] == 60_000
    assert stats["chi_square"] < CHI_SQUARE_9999
    assert abs(stats["doubles"] - stats["expected_doubles"]) < 4 * (30_000 * 5 / 36) ** 0.5


def test_dice_statistics_counts() -> None:
    stats = dice_statistics([(1, 1), (2, 6), (6, 6)])
    assert stats["rolls"] == 3 and stats["dice"] == 6
    assert stats["faces"] == {1: 2, 2: 1, 3: 0, 4: 0, 5: 0, 6: 3}
    assert stats["doubles"] == 2
    assert stats["expected_face"] == 1.0 and stats["expected_doubles"] == 0.5
    assert stats["chi_square"] == pytest.approx(1 + 0 + 1 + 1 + 1 + 4)
    assert dice_statistics([])["chi_square"] == 0.0
    with pytest.raises(ValueError, match="1 to 6"):
        dice_statistics([(0, 3)])


def test_commitment_is_the_sha256_of_the_seed_bytes() -> None:
    seed = ProvablyFairDice().new_seed()
    assert len(seed) == 64 and int(seed, 16) >= 0
    assert commitment(seed) == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    assert commitment(seed.upper()) == commitment(seed)


def test_new_seeds_differ() -> None:
    source = ProvablyFairDice()
    assert len({source.new_seed() for _ in range(20)}) == 20


@pytest.mark.parametrize(
    ("client_seed", "problem"),
    [
        ("", "1 to 64"),
        ("x" * 65, "1 to 64"),
        ("a:b", "':'"),
        ("tab\there", "printable ASCII"),
        ("ünï", "printable ASCII"),
        (7, "a string"),
    ],
)
def test_client_seeds_are_validated(client_seed: Any, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        check_client_seed(client_seed)
    with pytest.raises(ValueError, match=problem):
        derive_dice(SEED, (client_seed, "fine"), 0)


def test_client_seed_limits_are_accepted() -> None:
    assert check_client_seed("x") == "x"
    assert check_client_seed(" ~" * 32) == " ~" * 32


@pytest.mark.parametrize("seed", ["", "00" * 31, "zz" * 32, "00" * 33])
def test_seeds_are_validated(seed: str) -> None:
    with pytest.raises(ValueError, match="64 hex digits"):
        derive_dice(seed, CLIENT_SEEDS, 0)


@pytest.mark.parametrize("number", [-1, True, 1.0])
def test_roll_numbers_are_validated(number: Any) -> None:
    with pytest.raises(ValueError, match="roll number"):
        derive_dice(SEED, CLIENT_SEEDS, number)


def test_scripted_dice_hand_out_the_script_in_order() -> None:
    source: DiceSource = ScriptedDice([(3, 1), (6, 6)])
    seed = source.new_seed()
    assert commitment(seed) == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    assert source.roll(seed, CLIENT_SEEDS, 5) == (3, 1)
    assert source.roll(seed, CLIENT_SEEDS, 0) == (6, 6)


def test_scripted_dice_push_and_exhaustion() -> None:
    source = ScriptedDice()
    seed = source.new_seed()
    with pytest.raises(ScriptExhaustedError, match="used up"):
        source.roll(seed, CLIENT_SEEDS, 0)
    source.push((2, 4), (5, 5))
    assert source.remaining == 2
    assert source.roll(seed, CLIENT_SEEDS, 0) == (2, 4)
    assert source.remaining == 1
    with pytest.raises(ValueError, match="1 to 6"):
        source.push((7, 1))
    with pytest.raises(ValueError, match="client seed"):
        source.roll(seed, ("", "b"), 1)


def test_a_genuine_record_verifies() -> None:
    assert verify_record(a_record()) == []


def test_a_tampered_roll_is_reported() -> None:
    record = a_record()
    roll = record["games"][1]["rolls"][4]
    roll["dice"] = [roll["dice"][0] % 6 + 1, roll["dice"][1]]
    [problem] = verify_record(record)
    assert problem.startswith("game 2, roll 4 (roll): recorded ")


def test_a_wrong_seed_is_reported() -> None:
    """A seed that does not match the commitment fails the hash check, and its dice disagree."""
    record = a_record(games=1)
    record["games"][0]["seed"] = ProvablyFairDice().new_seed()
    problems = verify_record(record)
    assert "committed seed_hash" in problems[0]
    assert len(problems) > 1


def test_a_skipped_roll_number_is_reported() -> None:
    """Dropping a roll (as a server discarding an unwanted roll would) breaks the numbering."""
    record = a_record(games=1)
    del record["games"][0]["rolls"][3]
    [problem] = verify_record(record)
    assert "roll 3 of the record is numbered 4" in problem


def test_an_unfinished_game_cannot_be_verified_yet() -> None:
    record = a_record(games=2)
    record["games"][1]["seed"] = None
    [problem] = verify_record(record)
    assert problem.startswith("game 2: the seed is not revealed yet")


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda record: record.pop("games"), '"games" list'),
        (lambda record: record["games"][0].pop("seed_hash"), "has no 'seed_hash'"),
        (lambda record: record["games"][0].update(seed="abc"), "64 hex digits"),
        (lambda record: record["games"][0].update(client_seeds=["a"]), "two strings"),
        (lambda record: record["games"][0]["rolls"][0].update(kind="bonus"), "kind"),
        (lambda record: record["games"][0]["rolls"][0].update(dice=[7, 1]), "1 to 6"),
    ],
)
def test_a_malformed_record_is_a_record_error(change: Any, problem: str) -> None:
    record = a_record(games=1)
    change(record)
    with pytest.raises(RecordError, match=problem):
        verify_record(record)


def test_record_round_trip() -> None:
    record = a_record()
    assert record_to_dict(parse_record(record)) == record


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int | str | None, str, str]:
    """The exit status of ``nardy ARGV`` whether it is returned or raised, with its output."""
    try:
        code: int | str | None = main(list(argv))
    except SystemExit as stop:
        code = stop.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_verifies_a_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "match.json"
    path.write_text(json.dumps(a_record(games=3, rolls=10)))
    assert run(capsys, "verify-dice", str(path)) == (0, "ok: 30 rolls in 3 games verified\n", "")


def test_cli_reads_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(a_record(games=1, rolls=4))))
    assert run(capsys, "verify-dice", "-") == (0, "ok: 4 rolls in 1 games verified\n", "")


def test_cli_reports_mismatches_with_status_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = a_record(games=2)
    roll = record["games"][0]["rolls"][2]
    roll["dice"] = [roll["dice"][0], roll["dice"][1] % 6 + 1]
    record["games"][1]["seed_hash"] = "ab" * 32
    path = tmp_path / "match.json"
    path.write_text(json.dumps(record))
    code, out, err = run(capsys, "verify-dice", str(path))
    assert code == 1 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("game 1, roll 2 (roll): recorded ")
    assert lines[1].startswith("game 2: the seed hashes to ")
    assert not any(line.startswith("ok") for line in lines)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"games": 3}', '"games" list'),
        ('{"games": [{"number": 1}]}', "has no 'seed'"),
    ],
)
def test_cli_malformed_input_is_one_line_with_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    path = tmp_path / "match.json"
    path.write_text(content)
    code, out, err = run(capsys, "verify-dice", str(path))
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and message in err


def test_cli_missing_file_is_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "verify-dice", str(tmp_path / "absent.json"))
    assert code == 2 and out == "" and err.startswith("nardy: cannot read ")


def test_scripted_dice_drop_what_is_left() -> None:
    source = ScriptedDice([(2, 4), (5, 5)])
    assert source.clear() == 2
    assert source.remaining == 0
    assert source.clear() == 0
    with pytest.raises(ScriptExhaustedError, match="used up"):
        source.roll(source.new_seed(), CLIENT_SEEDS, 0)
