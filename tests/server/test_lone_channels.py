"""Which channels keep their versioned messages off Redis: learned from publishes, forgotten on any doubt."""

from __future__ import annotations

from nardy.server.lone_channels import LoneChannels


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def listening(clock: Clock | None = None) -> LoneChannels:
    lone = LoneChannels(clock=clock or Clock(), idle_seconds=600)
    lone.listen()
    return lone


def test_a_channel_is_lone_once_its_publish_reached_only_this_process() -> None:
    lone = listening()
    lone.published("heard-here", receivers=1, ours=1, since=lone.generation)
    lone.published("heard-by-nobody", receivers=0, ours=0, since=lone.generation)
    lone.published("heard-elsewhere", receivers=2, ours=1, since=lone.generation)
    lone.published("heard-elsewhere-only", receivers=1, ours=0, since=lone.generation)
    channels = ("heard-here", "heard-by-nobody", "heard-elsewhere", "heard-elsewhere-only")
    assert [lone.keeps(channel, "m") for channel in channels] == [True, True, False, False]


def test_nothing_is_learned_when_it_may_be_stale() -> None:
    lone = listening()
    since = lone.generation
    lone.heard("another")  # an announcement arrived while the publish was on its way
    lone.published("during-an-announcement", receivers=1, ours=1, since=since)
    lone.published("own-subscription-changing", receivers=1, ours=None, since=lone.generation)
    assert not lone.keeps("during-an-announcement", "m")
    assert not lone.keeps("own-subscription-changing", "m")


def test_nothing_is_kept_back_while_announcements_cannot_be_heard() -> None:
    lone = LoneChannels()
    lone.published("game", receivers=0, ours=0, since=lone.generation)
    assert not lone.keeps("game", "m")


def test_an_announcement_ends_it_and_hands_back_the_last_message_kept_back() -> None:
    lone = listening()
    for channel in ("kept", "not-kept"):
        lone.published(channel, receivers=1, ours=1, since=lone.generation)
    assert lone.keeps("kept", "version 7") and lone.keeps("kept", "version 8")
    assert lone.heard("kept") == "version 8"
    assert lone.heard("not-kept") is None
    assert not lone.keeps("kept", "m") and not lone.keeps("not-kept", "m")


def test_going_deaf_forgets_everything_and_hands_back_the_last_messages_kept_back() -> None:
    lone = listening()
    for channel in ("a", "b"):
        lone.published(channel, receivers=0, ours=0, since=lone.generation)
    assert lone.keeps("a", "a's last")
    assert lone.deafened() == [("a", "a's last")]
    lone.published("c", receivers=0, ours=0, since=lone.generation)  # nothing is learned while deaf
    assert not lone.keeps("c", "m")
    lone.listen()
    assert not lone.keeps("a", "m") and not lone.keeps("b", "m") and not lone.keeps("c", "m")


def test_a_channel_learned_again_remembers_what_it_kept_back() -> None:
    lone = listening()
    lone.published("game", receivers=0, ours=0, since=lone.generation)
    assert lone.keeps("game", "kept")
    lone.published("game", receivers=0, ours=0, since=lone.generation)  # a message that is not versioned
    assert lone.heard("game") == "kept"


def test_idle_channels_are_forgotten() -> None:
    clock = Clock()
    lone = listening(clock)
    lone.published("old", receivers=0, ours=0, since=lone.generation)
    clock.now += 300
    lone.published("recent", receivers=0, ours=0, since=lone.generation)
    clock.now += 300
    assert not lone.keeps("old", "m")  # idle for 600 s
    assert lone.keeps("recent", "m")
    clock.now += 599
    assert lone.keeps("recent", "m")  # each message kept back counts as use
