"""The chat of a two-player game in the browser: writing, reading, quick phrases in the reader's
language, muting the opponent (remembered by the browser), and text that is never markup."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.web.browser_client import Client
from tests.web.web_driver import WebServer


MakeClient = Callable[..., Client]
MARKUP = '<img src=x onerror="document.body.dataset.xss = \'1\'"><b>bold?</b>'


def lines(person: Client) -> list[str]:
    """The chat lines the page shows, as text."""
    return [text.strip() for text in person.page.locator(".chat-messages .chat-message").all_inner_texts()]


def name_of(person: Client) -> str:
    """Who the person is signed in as (a guest made when they opened or joined the table)."""
    name: str = person.context.request.get(f"{person.server.url}/api/me").json()["user"]["username"]
    return name


def wait_lines(person: Client, count: int) -> list[str]:
    """Wait until the page shows ``count`` chat lines; returns them."""
    person.page.wait_for_function(
        "n => document.querySelectorAll('.chat-messages .chat-message').length === n", arg=count)
    return lines(person)


@pytest.mark.slow
def test_two_players_chat_with_phrases_mute_and_escaping(client: MakeClient, web_server: WebServer) -> None:
    alice, bob = client(), client(locale="ru-RU")
    web_server.dice((3, 1))
    alice.goto("#/")
    form = alice.page.locator("form.create")
    form.locator("select[name=variant]").select_option("georgian")
    form.locator("input[name=private]").check()
    form.locator("[data-action=create]").click()
    alice.page.wait_for_selector(".game-page[data-status=waiting]")
    link = alice.page.locator("[data-invite]").get_attribute("data-invite")
    assert link and "#/invite/" in link
    bob.page.goto(link)
    bob.page.click("[data-action=accept-invite]")
    for person in (alice, bob):
        person.page.wait_for_selector(".game-page[data-status=playing] .chat-panel:not([hidden])")
    ann, ben = name_of(alice), name_of(bob)

    # Alice writes, Bob reads; the box empties once the message is sent
    alice.page.fill(".chat-say input[name=chat_text]", "Hello Bob")
    alice.page.click("[data-action=chat-send]")
    assert wait_lines(bob, 1) == [f"{ann}: Hello Bob"]
    assert alice.page.input_value(".chat-say input[name=chat_text]") == ""

    # a quick phrase: each reads it in their own language
    assert bob.page.locator("[data-phrase=good_luck]").inner_text() == "Удачи!"
    alice.page.click("[data-phrase=good_luck]")
    assert wait_lines(bob, 2)[1] == f"{ann}: Удачи!"
    assert wait_lines(alice, 2)[1] == f"{ann}: Good luck!"

    # markup is shown as the text it is, and never runs
    alice.page.fill(".chat-say input[name=chat_text]", MARKUP)
    alice.page.click("[data-action=chat-send]")
    for person in (bob, alice):
        wait_lines(person, 3)
        shown = person.page.locator(".chat-messages .chat-message .text").last.inner_text()
        assert shown == MARKUP
        assert person.page.locator(".chat-messages img, .chat-messages b:not(.name)").count() == 0
        assert person.page.evaluate("() => document.body.dataset.xss") is None

    # Bob answers, then mutes Alice: her messages go, his own stay, new ones of hers do not show
    bob.page.fill(".chat-say input[name=chat_text]", "Привет")
    bob.page.click("[data-action=chat-send]")
    wait_lines(alice, 4)
    wait_lines(bob, 4)
    mute = bob.page.locator(".chat-mutes [data-mute]")
    assert mute.count() == 1 and mute.get_attribute("aria-pressed") == "false"
    mute.click()
    assert wait_lines(bob, 1) == [f"{ben}: Привет"]
    alice.page.fill(".chat-say input[name=chat_text]", "Are you there?")
    alice.page.click("[data-action=chat-send]")
    wait_lines(alice, 5)
    bob.page.wait_for_function(
        "() => (document.querySelector('.chat-messages .muted-count') || {}).textContent?.endsWith(': 4')")
    assert lines(bob) == [f"{ben}: Привет"]
    alice.screenshot_page("chat-two-players")

    # the browser remembers it
    bob.page.reload()
    bob.page.wait_for_selector(".chat-messages .muted-count")
    assert lines(bob) == [f"{ben}: Привет"]
    bob.page.locator(".chat-mutes [data-mute][aria-pressed=true]").click()
    shown = wait_lines(bob, 5)
    assert shown[0] == f"{ann}: Hello Bob" and shown[-1] == f"{ann}: Are you there?"
