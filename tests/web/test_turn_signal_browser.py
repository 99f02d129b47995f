"""'Your turn' while the page is hidden: the tab's title says so and, once the player switched notifications on
in Settings (off by default; the browser's permission asked then), a notification appears; a game that
starts for the player meanwhile (a tournament round) is signalled the same way. Seen again, the title is back.

The page's visibility and the browser's Notification are stood in for by an init script: a headless browser
neither hides a page nor shows notifications."""

from __future__ import annotations

from collections.abc import Callable

from tests.web.browser_client import Client
from tests.web.test_lobby_browser import account, sign_up
from tests.web.web_driver import WebServer


MakeClient = Callable[..., Client]

HIDDEN_AND_NOTIFIED = """
window.__hidden = false;
Object.defineProperty(document, "visibilityState", { configurable: true, get: () => (window.__hidden ? "hidden" : "visible") });
Object.defineProperty(document, "hidden", { configurable: true, get: () => !!window.__hidden });
window.__notes = [];
class RecordedNotification {
  constructor(title, options) { window.__notes.push({ title, body: (options || {}).body || "" }); }
  close() {}
}
RecordedNotification.permission = "default";
RecordedNotification.requestPermission = () => { RecordedNotification.permission = "granted"; return Promise.resolve("granted"); };
window.Notification = RecordedNotification;
"""


def set_hidden(person: Client, hidden: bool) -> None:
    person.page.evaluate("(hidden) => { window.__hidden = hidden; document.dispatchEvent(new Event('visibilitychange')); }",
                         hidden)


def switch_notifications_on(person: Client) -> None:
    person.goto("#/settings")
    box = person.page.locator("input[name=turnNotify]")
    assert not box.is_checked(), "off by default"
    box.check()
    person.page.wait_for_function("() => JSON.parse(localStorage.getItem('nardy.settings')).turnNotify === true")
    assert person.page.evaluate("Notification.permission") == "granted", "the permission was asked for"


def play_my_turn(person: Client) -> None:
    person.page.wait_for_selector(".game-page[data-my-turn=true]")
    while person.play_one_action():
        pass


def test_your_turn_while_the_page_is_hidden(client: MakeClient, web_server: WebServer) -> None:
    alice, bob = client(), client()
    alice.page.add_init_script(HIDDEN_AND_NOTIFIED)
    web_server.dice((3, 1), (6, 5), (2, 1), (4, 3), (5, 2))
    switch_notifications_on(alice)
    alice.goto("#/")
    form = alice.page.locator("form.create")
    form.locator("select[name=variant]").select_option("backgammon")
    form.locator("input[name=private]").check()
    form.locator("[data-action=create]").click()
    alice.page.wait_for_selector(".game-page[data-status=waiting]")
    table = alice.table_id()
    link = alice.page.locator("[data-invite]").get_attribute("data-invite")
    assert link
    bob.page.goto(link)
    bob.page.click("[data-action=accept-invite]")
    play_my_turn(alice)  # alice opens with 3-1
    title = alice.page.title()

    set_hidden(alice, True)
    alice.page.wait_for_function("(table) => window.nardy.turns.watching().includes(table)", arg=table)
    play_my_turn(bob)
    alice.page.wait_for_function("() => document.title.startsWith('● ')")
    assert "Your turn" in alice.page.title()
    notes = alice.page.evaluate("window.__notes")
    assert [note["title"] for note in notes] == ["Your turn"], notes

    set_hidden(alice, False)
    alice.page.wait_for_function("(title) => document.title === title", arg=title)

    # away from the table (as with a correspondence game left open elsewhere), the signal comes all the same
    play_my_turn(alice)
    alice.goto("#/")
    alice.page.wait_for_selector("[data-action=quick-play]")
    set_hidden(alice, True)
    play_my_turn(bob)
    alice.page.wait_for_function("() => window.__notes.length === 2")
    assert alice.page.title().startswith("● ")


def test_a_tournament_round_starting_is_signalled(client: MakeClient, web_server: WebServer) -> None:
    organiser = account(web_server, "signal_host")
    tournament = organiser.post("/api/tournaments", {
        "name": "Evening cup", "format": "knockout", "variant": "georgian", "max_players": 2,
    })["id"]
    alice = client()
    alice.page.add_init_script(HIDDEN_AND_NOTIFIED)
    sign_up(alice, "signal_alice")
    switch_notifications_on(alice)
    alice.goto(f"#/tournament/{tournament}")
    alice.page.click("[data-action=register]")
    alice.page.wait_for_selector("[data-action=withdraw]")
    alice.goto("#/")
    alice.page.wait_for_function("() => window.nardy.turns !== undefined")

    set_hidden(alice, True)
    web_server.dice((5, 3), (4, 2), (6, 1), (3, 3))
    account(web_server, "signal_bob").post(f"/api/tournaments/{tournament}/register")
    alice.page.wait_for_function("""() => {
        window.nardy.turns.refresh();
        return window.__notes.some((note) => note.title === "A game is waiting for you");
    }""", polling=300, timeout=20_000)
    assert alice.page.title().startswith("● ")
    note = next(n for n in alice.page.evaluate("window.__notes") if n["title"] == "A game is waiting for you")
    assert "signal_alice" in note["body"] and "signal_bob" in note["body"]
