"""The move-generation benchmark's corpus of the positions bots search."""

from benchmarks.movegen import bot_corpus
from nardy.rules import DICE_ROLLS


def test_the_bot_corpus_asks_every_roll_of_each_side_of_a_position() -> None:
    corpus = bot_corpus("long-traditional", 50)
    assert len(corpus) == 50
    first, turned = corpus[0][0], corpus[len(DICE_ROLLS)][0]
    assert [roll for _, roll in corpus[: len(DICE_ROLLS)]] == list(DICE_ROLLS)
    assert all(position == first for position, _ in corpus[: len(DICE_ROLLS)])
    assert turned == first.turned()
